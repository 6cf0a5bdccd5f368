export * from './fields.js'
export * from './routes.js'
export * from './payments.js'
export * from './spending.js'

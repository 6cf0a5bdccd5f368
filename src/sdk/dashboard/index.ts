export * from './fields.js'
export * from './routes.js'

/** One thing that stops a real-network daemon from serving, and the setting that fixes it. */
export type ConfigProblem = { setting: string; problem: string; fix: string }

/** The one message listing every problem, each with its fix. */
export function describeProblems(problems: ConfigProblem[]): string {
  return problems.map((p) => `  - ${p.setting}: ${p.problem}; ${p.fix}`).join('\n')
}

// Everything that runs on behalf of a project registers here (issue 9, item 7): virtual
// datapoints, alerts, analytics' weekly runs and setpoints' pending operations. Deleting a
// project calls stopProject() BEFORE the catalog forgets the project, so no calculation of a deleted
// project writes on (ids are never reused either, so a straggler's write could only land in
// an unreachable series, never in another project's). The composition root (server/runtimes.ts:
// each runtime registers as it starts) gives stopProject to the API as its onProjectDeleting hook.

export interface ProjectRuntime {
  /** Stops everything of the project, including starts still under way; idempotent. */
  stopProject(projectId: number): Promise<void> | void
}

export class ProjectRuntimes {
  private readonly runtimes: { name: string; runtime: ProjectRuntime }[] = []

  register(name: string, runtime: ProjectRuntime): void {
    this.runtimes.push({ name, runtime })
  }

  names(): string[] {
    return this.runtimes.map((r) => r.name)
  }

  /** Stops the project in every runtime; all are asked even if one fails, then the first failure is thrown. */
  async stopProject(projectId: number): Promise<void> {
    const results = await Promise.allSettled(this.runtimes.map(async (r) => r.runtime.stopProject(projectId)))
    const failed = results.findIndex((r) => r.status === 'rejected')
    if (failed >= 0) {
      const reason = (results[failed] as PromiseRejectedResult).reason as Error
      throw new Error(`stopping project ${projectId} in ${this.runtimes[failed].name} failed: ${reason.message}`)
    }
  }
}

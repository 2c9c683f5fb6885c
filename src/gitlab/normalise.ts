/** Which act a verified, parsed GitLab delivery is: an issue's (`acts.ts`) or a run's merge request's (`merge-request-acts.ts`). */
import { issueAct, noteAct, type GitlabAct, type GitlabTriggerConfig, type Self } from './acts.js';
import { mergeRequestAct, mergeRequestNoteAct, pipelineAct } from './merge-request-acts.js';
import type { GitlabEvent } from './parse-webhook.js';

/** What a verified, parsed delivery asks for. */
export function actOf(event: GitlabEvent, config: GitlabTriggerConfig, self: Self | undefined): GitlabAct {
  switch (event.kind) {
    case 'issue':
      return issueAct(event.payload, config, self);
    case 'note':
      return event.payload.object_attributes.noteable_type === 'MergeRequest'
        ? mergeRequestNoteAct(event.payload, config, self)
        : noteAct(event.payload, config, self);
    case 'merge_request':
      return mergeRequestAct(event.payload);
    case 'pipeline':
      return pipelineAct(event.payload, config);
  }
}

import type {
  AgentsSessionsRenameArguments,
  AgentsSessionsRenameResponse,
  AgentsSessionsSetStatusArguments,
  AgentsSessionsSetStatusResponse,
  AssistantThreadsSetStatusArguments,
  AssistantThreadsSetStatusResponse,
  AssistantThreadsSetSuggestedPromptsArguments,
  AssistantThreadsSetSuggestedPromptsResponse,
  ChatGetPermalinkArguments,
  ChatGetPermalinkResponse,
  ChatPostEphemeralArguments,
  ChatPostEphemeralResponse,
  ChatPostMessageArguments,
  ChatPostMessageResponse,
  ChatUnfurlArguments,
  ChatUnfurlResponse,
  ChatUpdateArguments,
  ChatUpdateResponse,
  ConversationsHistoryArguments,
  ConversationsHistoryResponse,
  ConversationsInfoArguments,
  ConversationsInfoResponse,
  ConversationsRepliesArguments,
  ConversationsRepliesResponse,
  ReactionsAddArguments,
  ReactionsAddResponse,
  ReactionsRemoveArguments,
  ReactionsRemoveResponse,
  UsersInfoArguments,
  UsersInfoResponse,
  UsersLookupByEmailArguments,
  UsersLookupByEmailResponse,
  ViewsPublishArguments,
  ViewsPublishResponse,
} from '@slack/web-api';

/**
 * The Slack Web API methods the outbox side calls (notifiers, agent sessions, prompt context, the
 * people directory), shaped and typed as `@slack/web-api`'s `WebClient` has them: a `WebClient`
 * satisfies it, and so does the service's own thin client (`SlackWebApi`, slack-web-api.ts). A failure
 * rejects with `@slack/web-api`'s errors, which slack-errors.ts reads.
 */
export interface SlackCalls {
  chat: {
    postMessage(args: ChatPostMessageArguments): Promise<ChatPostMessageResponse>;
    update(args: ChatUpdateArguments): Promise<ChatUpdateResponse>;
    getPermalink(args: ChatGetPermalinkArguments): Promise<ChatGetPermalinkResponse>;
    postEphemeral(args: ChatPostEphemeralArguments): Promise<ChatPostEphemeralResponse>;
    unfurl(args: ChatUnfurlArguments): Promise<ChatUnfurlResponse>;
  };
  reactions: {
    add(args: ReactionsAddArguments): Promise<ReactionsAddResponse>;
    remove(args: ReactionsRemoveArguments): Promise<ReactionsRemoveResponse>;
  };
  conversations: {
    history(args: ConversationsHistoryArguments): Promise<ConversationsHistoryResponse>;
    replies(args: ConversationsRepliesArguments): Promise<ConversationsRepliesResponse>;
    info(args: ConversationsInfoArguments): Promise<ConversationsInfoResponse>;
  };
  users: {
    info(args: UsersInfoArguments): Promise<UsersInfoResponse>;
    lookupByEmail(args: UsersLookupByEmailArguments): Promise<UsersLookupByEmailResponse>;
  };
  views: {
    publish(args: ViewsPublishArguments): Promise<ViewsPublishResponse>;
  };
  agents: {
    sessions: {
      setStatus(args: AgentsSessionsSetStatusArguments): Promise<AgentsSessionsSetStatusResponse>;
      rename(args: AgentsSessionsRenameArguments): Promise<AgentsSessionsRenameResponse>;
    };
  };
  assistant: {
    threads: {
      setSuggestedPrompts(args: AssistantThreadsSetSuggestedPromptsArguments): Promise<AssistantThreadsSetSuggestedPromptsResponse>;
      setStatus(args: AssistantThreadsSetStatusArguments): Promise<AssistantThreadsSetStatusResponse>;
    };
  };
}

/**
 * The fake login service's token endpoint, `POST {login}/{tenant}/oauth2/v2.0/token`, as a
 * single-tenant bot uses it: "Authenticate requests from your bot to the Bot Connector service"
 * (https://learn.microsoft.com/azure/bot-service/rest-api/bot-framework-rest-connector-authentication#bot-to-connector)
 * sends `grant_type=client_credentials&client_id=…&client_secret=…&scope=https://api.botframework.com/.default`
 * as a form and gets `{token_type: "Bearer", expires_in, ext_expires_in, access_token}`. Refusals take
 * the shape and AADSTS codes of "Microsoft identity platform and the OAuth 2.0 client credentials flow"
 * (https://learn.microsoft.com/entra/identity-platform/v2-oauth2-client-creds-grant-flow#error-response).
 */
import { randomUUID } from 'node:crypto';
import { CONNECTOR_SCOPE, type TeamsKeys } from './teams-keys.js';

interface TokenRequest {
  clientId: string;
  clientSecret: string;
  tenantId: string;
  method: string;
  contentType: string | undefined;
  /** The tenant in the path. */
  tenant: string;
  form: URLSearchParams;
  keys: TeamsKeys;
  /** Seconds since the epoch, by the fake's clock. */
  now: number;
  accessTokenLifetime?: number;
}

const refusal = (status: number, error: string, code: number, description: string) => ({
  status,
  body: {
    error,
    error_description: `AADSTS${code}: ${description}`,
    error_codes: [code],
    timestamp: new Date().toISOString(),
    trace_id: randomUUID(),
    correlation_id: randomUUID(),
  },
});

/** The endpoint's answer to one request: an access token, or the refusal Entra gives. */
export async function answerTokenRequest(request: TokenRequest): Promise<{ status: number; body: unknown }> {
  const { form } = request;
  if (request.method !== 'POST' || !(request.contentType ?? '').startsWith('application/x-www-form-urlencoded')) {
    return refusal(400, 'invalid_request', 900144, "The request body must contain the following parameter: 'grant_type'.");
  }
  if (request.tenant !== request.tenantId) return refusal(400, 'invalid_request', 90002, `Tenant '${request.tenant}' not found.`);
  if (form.get('grant_type') !== 'client_credentials') {
    return refusal(400, 'unsupported_grant_type', 70003, 'The app requested an unsupported grant type.');
  }
  if (form.get('client_id') !== request.clientId) {
    return refusal(400, 'unauthorized_client', 700016, `Application with identifier '${form.get('client_id') ?? ''}' was not found in the directory.`);
  }
  if (form.get('client_secret') !== request.clientSecret) {
    return refusal(401, 'invalid_client', 7000215, 'Invalid client secret provided. Ensure the secret being sent in the request is the client secret value.');
  }
  if (form.get('scope') !== CONNECTOR_SCOPE) {
    return refusal(400, 'invalid_scope', 1002012, `The provided value for scope ${form.get('scope') ?? ''} is not valid.`);
  }
  const expiresIn = request.accessTokenLifetime ?? 3599;
  const accessToken = await request.keys.issueAccessToken({ clientId: request.clientId, tenantId: request.tenantId, issuedAt: request.now, expiresIn });
  return { status: 200, body: { token_type: 'Bearer', expires_in: expiresIn, ext_expires_in: expiresIn, access_token: accessToken } };
}

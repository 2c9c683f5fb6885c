/**
 * Who Sign in with Microsoft signed in, from the claims of the Microsoft identity platform's id_token
 * (https://learn.microsoft.com/entra/identity-platform/id-token-claims-reference): the person is
 * `teams:<oid>`, the Entra object id Teams' activities name them by (`from.aadObjectId`), never `sub`,
 * which differs for every app the person signs in to. Only people of the tenant Teams serves
 * (`TEAMS_TENANT_ID`) are admitted: a guest of ours signs in as a person of our tenant, with our
 * tenant's `tid` and their object id in it.
 */
import type { IdTokenClaims } from '../../surface-kit/openid-sign-in.js';
import type { NotAdmitted } from '../../surface-kit/openid-routes.js';
import { SignInRefused, type SignedInIdentity } from '../../surface-kit/sign-in-provider.js';
import { GUID } from '../config/ids.js';

/** Names of people are cut here, as Teams' activities' are. */
const NAME_LIMIT = 200;

/** The Teams person the checked id_token names, or why this console refuses them (another tenant); throws SignInRefused when it names nobody. */
export function microsoftIdentity(claims: IdTokenClaims, tenantId: string): SignedInIdentity | NotAdmitted {
  const oid = claims['oid'];
  if (typeof oid !== 'string' || !GUID.test(oid)) throw new SignInRefused('the id_token names no Entra object id (oid)');
  const tid = typeof claims['tid'] === 'string' && claims['tid'] !== '' ? claims['tid'].toLowerCase() : undefined;
  if (tid !== tenantId.toLowerCase()) {
    return {
      notAdmitted: {
        why: `Your Microsoft account belongs to another organisation (tenant ${tid ?? 'none named'}); this console is for tenant ${tenantId} only.`,
        reason: `the account's tenant ${tid ?? '(none)'} is not ${tenantId}`,
      },
    };
  }
  const personId = `teams:${oid.toLowerCase()}`;
  const name = [claims['name'], claims['preferred_username']].find((value): value is string => typeof value === 'string' && value.trim() !== '');
  return { personId, name: name?.trim().slice(0, NAME_LIMIT) ?? personId, workspace: tid };
}

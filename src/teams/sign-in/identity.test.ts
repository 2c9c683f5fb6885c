import { describe, expect, it } from 'vitest';
import { SignInRefused } from '../../surface-kit/sign-in-provider.js';
import { microsoftIdentity } from './identity.js';

const TENANT = '5c1a7e0d-2b9f-4e8a-9d3c-7f6b1a2e4c90';
const OID = 'a1d2a3e4-0000-4a00-8a00-00000000ada1';
const ADA = { sub: 'pairwise-sub-of-this-app-0123456789', oid: OID, tid: TENANT, name: 'Ada Lovelace', preferred_username: 'ada@contoso.example' };

describe('who Sign in with Microsoft signed in', () => {
  it('is teams:<oid>, never the pairwise sub, in the tenant its tid names', () => {
    expect(microsoftIdentity(ADA, TENANT)).toEqual({ personId: `teams:${OID}`, name: 'Ada Lovelace', workspace: TENANT });
  });

  it('writes the object id and tenant lower-case, as Entra and TEAMS_TENANT_ID do', () => {
    expect(microsoftIdentity({ ...ADA, oid: OID.toUpperCase(), tid: TENANT.toUpperCase() }, TENANT)).toMatchObject({
      personId: `teams:${OID}`,
      workspace: TENANT,
    });
  });

  it.each([
    ['preferred_username when the name is blank', { name: '  ' }, 'ada@contoso.example'],
    ['the person id when neither is given', { name: undefined, preferred_username: undefined }, `teams:${OID}`],
    ['a long name cut to 200 characters', { name: `  ${'A'.repeat(300)}` }, 'A'.repeat(200)],
  ])('names them by %s', (_what, claims, name) => {
    expect(microsoftIdentity({ ...ADA, ...claims }, TENANT)).toMatchObject({ name });
  });

  it.each([
    ['no oid (only a sub)', { oid: undefined }],
    ['an oid that is not an object id', { oid: 'not-a-guid' }],
  ])('refuses an id_token with %s', (_what, claims) => {
    expect(() => microsoftIdentity({ ...ADA, ...claims }, TENANT)).toThrow(new SignInRefused('the id_token names no Entra object id (oid)'));
  });

  it.each([
    ['another tenant', { tid: '9188040d-6c67-4c5b-b112-36a304b66dad' }, '9188040d-6c67-4c5b-b112-36a304b66dad'],
    ['no tenant at all', { tid: undefined }, 'none named'],
  ])('does not admit someone of %s, saying which tenant this console is for', (_what, claims, named) => {
    const refused = microsoftIdentity({ ...ADA, ...claims }, TENANT);
    expect(refused).toEqual({
      notAdmitted: {
        why: `Your Microsoft account belongs to another organisation (tenant ${named}); this console is for tenant ${TENANT} only.`,
        reason: expect.stringContaining(`is not ${TENANT}`) as string,
      },
    });
  });
});

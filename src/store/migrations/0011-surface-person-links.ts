import type { Migration } from './migration.js';

/**
 * Person links of any surface: a user of a surface without people of its own (Linear,
 * GitHub, Jira) is known as a person by (surface, that surface's user id). Migration 9 kept Linear's
 * alone; its links move over as `linear` ones.
 */
export const migration0011: Migration = {
  id: 11,
  name: 'surface-person-links',
  sql: `
CREATE TABLE surface_person_links (
  surface   TEXT    NOT NULL,
  user_id   TEXT    NOT NULL,
  person_id TEXT    NOT NULL,
  how       TEXT    NOT NULL CHECK (how IN ('email', 'console')),
  linked_at INTEGER NOT NULL,
  PRIMARY KEY (surface, user_id)
);
INSERT INTO surface_person_links (surface, user_id, person_id, how, linked_at)
  SELECT 'linear', linear_user_id, slack_user_id, how, linked_at FROM person_links;
DROP TABLE person_links;
ALTER TABLE surface_person_links RENAME TO person_links;
`,
};

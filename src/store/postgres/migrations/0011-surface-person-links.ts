import type { Migration } from '../../migrations/migration.js';

/** As SQLite's migration 11: person links of any surface, Linear's moved over. */
export const pgMigration0011: Migration = {
  id: 11,
  name: 'surface-person-links',
  sql: `
CREATE TABLE surface_person_links (
  surface   TEXT COLLATE "C" NOT NULL,
  user_id   TEXT COLLATE "C" NOT NULL,
  person_id TEXT   NOT NULL,
  how       TEXT   NOT NULL CHECK (how IN ('email', 'console')),
  linked_at BIGINT NOT NULL,
  PRIMARY KEY (surface, user_id)
);
INSERT INTO surface_person_links (surface, user_id, person_id, how, linked_at)
  SELECT 'linear', linear_user_id, slack_user_id, how, linked_at FROM person_links;
DROP TABLE person_links;
ALTER TABLE surface_person_links RENAME TO person_links;
`,
};

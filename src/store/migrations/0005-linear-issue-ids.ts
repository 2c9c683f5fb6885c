import type { Migration } from './migration.js';

/**
 * Two things Linear needs kept by something that does not change:
 *
 * 1. A Linear issue's anchor (and outbox destination) is `linear:<issue id>`, no longer
 *    `linear:<identifier>`: the identifier (`ENG-123`) changes when the issue moves to another team,
 *    and the run was then lost. Old rows know only the identifier; the id is found in what they
 *    stored with it — the trigger payloads' `reference.issueId` and the start comments' delivery
 *    results (`{commentId, issueId}`). An identifier maps when these name exactly one id. Mapped
 *    anchors and destinations are rewritten everywhere: triggers (anchor, payload destinations),
 *    tracked runs (anchor, destinations), anchor links, and the outbox (destination, and the keys and
 *    `receivedKey` pointers that embed it, so a run's later edits still find its start comment).
 *    What cannot be mapped is left as it is: the notifier still accepts `linear:<identifier>`, and
 *    Linear triggers name that form as another anchor of the issue, so such a run is found as before
 *    for as long as its identifier holds.
 *    Known edge: an unsent start comment that an earlier attempt may already have created gets a new
 *    client-chosen id with its new key, so a retry could create it a second time.
 *
 * 2. The `linear.states` moves made for a run are kept with the run (`workflow_moves`), not as event
 *    keys that `intake.dedupe_retention` prunes; the keys recorded so far are moved over.
 *
 * Needs SQLite ≥ 3.44 (ORDER BY inside json_group_array; better-sqlite3 bundles a newer one). A
 * database that never held identifier anchors (e.g. a new PostgreSQL one) needs only the column.
 */
export const migration0005: Migration = {
  id: 5,
  name: 'linear-issue-ids',
  sql: `
CREATE TEMP TABLE linear_issue_map AS
  SELECT 'linear:' || identifier AS old_anchor, 'linear:' || MIN(issue_id) AS new_anchor
  FROM (
    SELECT substr(anchor, 8) AS identifier, json_extract(payload, '$.reference.issueId') AS issue_id
      FROM triggers
     WHERE anchor GLOB 'linear:[A-Za-z0-9]*-[0-9]*' AND json_valid(payload)
       AND json_type(payload, '$.reference.issueId') = 'text'
    UNION ALL
    SELECT substr(destination, 8), json_extract(result, '$.issueId')
      FROM outbox
     WHERE destination GLOB 'linear:[A-Za-z0-9]*-[0-9]*' AND kind = 'received' AND json_valid(result)
       AND json_type(result, '$.issueId') = 'text'
  )
  WHERE issue_id <> '' AND identifier NOT GLOB '*[^A-Za-z0-9-]*'
  GROUP BY identifier
  HAVING COUNT(DISTINCT issue_id) = 1;

UPDATE triggers SET anchor = m.new_anchor FROM linear_issue_map m WHERE triggers.anchor = m.old_anchor;

UPDATE triggers SET payload = json_set(payload, '$.destinations', (
    SELECT json_group_array(COALESCE(m.new_anchor, d.value) ORDER BY d.key)
      FROM json_each(triggers.payload, '$.destinations') d LEFT JOIN linear_issue_map m ON m.old_anchor = d.value))
 WHERE json_valid(payload) AND json_type(payload, '$.destinations') = 'array'
   AND EXISTS (SELECT 1 FROM json_each(triggers.payload, '$.destinations') d JOIN linear_issue_map m ON m.old_anchor = d.value);

UPDATE tracked_runs SET anchor = m.new_anchor FROM linear_issue_map m WHERE tracked_runs.anchor = m.old_anchor;

UPDATE tracked_runs SET destinations = (
    SELECT json_group_array(COALESCE(m.new_anchor, d.value) ORDER BY d.key)
      FROM json_each(tracked_runs.destinations) d LEFT JOIN linear_issue_map m ON m.old_anchor = d.value)
 WHERE EXISTS (SELECT 1 FROM json_each(tracked_runs.destinations) d JOIN linear_issue_map m ON m.old_anchor = d.value);

UPDATE anchor_runs SET anchor = m.new_anchor FROM linear_issue_map m WHERE anchor_runs.anchor = m.old_anchor;
UPDATE anchors SET anchor = m.new_anchor FROM linear_issue_map m WHERE anchors.anchor = m.old_anchor;

-- Keys embed the destination at the end (received:, failed:, followup:, notices) or between colons (run:…:<destination>:status).
UPDATE outbox SET
  destination = m.new_anchor,
  key = CASE
    WHEN substr(outbox.key, -length(m.old_anchor) - 1) = ':' || m.old_anchor
      THEN substr(outbox.key, 1, length(outbox.key) - length(m.old_anchor)) || m.new_anchor
    ELSE replace(outbox.key, ':' || m.old_anchor || ':', ':' || m.new_anchor || ':')
  END,
  payload = CASE
    WHEN json_valid(outbox.payload) AND json_type(outbox.payload, '$.receivedKey') = 'text'
         AND substr(json_extract(outbox.payload, '$.receivedKey'), -length(m.old_anchor) - 1) = ':' || m.old_anchor
      THEN json_set(outbox.payload, '$.receivedKey',
             substr(json_extract(outbox.payload, '$.receivedKey'), 1, length(json_extract(outbox.payload, '$.receivedKey')) - length(m.old_anchor)) || m.new_anchor)
    ELSE outbox.payload
  END
  FROM linear_issue_map m WHERE outbox.destination = m.old_anchor;

DROP TABLE linear_issue_map;

ALTER TABLE tracked_runs ADD COLUMN workflow_moves TEXT NOT NULL DEFAULT '[]';

UPDATE tracked_runs SET workflow_moves = (
    SELECT json_group_array(CASE WHEN e.key = 'linear:moved:started:' || tracked_runs.run_id THEN 'started' ELSE 'pull_request' END ORDER BY e.key DESC)
      FROM event_keys e
     WHERE e.key IN ('linear:moved:started:' || tracked_runs.run_id, 'linear:moved:pull_request:' || tracked_runs.run_id))
 WHERE EXISTS (SELECT 1 FROM event_keys e
                WHERE e.key IN ('linear:moved:started:' || tracked_runs.run_id, 'linear:moved:pull_request:' || tracked_runs.run_id));

DELETE FROM event_keys WHERE key GLOB 'linear:moved:*';
`,
};

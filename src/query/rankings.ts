import type Database from 'better-sqlite3';
import type { StateRanking } from '../answers/reference.ts';

/**
 * States by the unweighted mean overall score of their ZIPs, highest first; ties of the exact mean by state
 * code. `avg_score` is the mean rounded half up, and label, grade and colour are its band (the `states` table).
 */
export function stateRankings(db: Database.Database): StateRanking[] {
  const rows = db
    .prepare(`SELECT state_name AS state, state_code, avg_healthscore AS avg_score, label, grade, color, zip_count
    FROM states ORDER BY avg_healthscore_exact DESC, state_code`)
    .all() as Array<Omit<StateRanking, 'rank'>>;
  return rows.map((row, i) => ({ rank: i + 1, ...row }));
}

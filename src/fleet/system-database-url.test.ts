import { describe, expect, it } from 'vitest';
import { systemDatabaseUrl } from './system-database-url.js';

describe('systemDatabaseUrl', () => {
  it('sets the idle-in-transaction timeout in the connection options, keeping everything else', () => {
    const url = new URL(systemDatabaseUrl('postgresql://loop:s3cret@db.internal:5433/fleet?sslmode=require'));
    expect(url.searchParams.get('options')).toBe('-c idle_in_transaction_session_timeout=60000');
    expect([url.username, url.password, url.host, url.pathname, url.searchParams.get('sslmode')]).toEqual(['loop', 's3cret', 'db.internal:5433', '/fleet', 'require']);
  });

  it("adds to options the URL already has, and leaves a timeout the URL sets as it is", () => {
    expect(new URL(systemDatabaseUrl('postgresql://db/fleet?options=-c%20statement_timeout%3D5000', 1000)).searchParams.get('options')).toBe('-c statement_timeout=5000 -c idle_in_transaction_session_timeout=1000');
    const own = 'postgresql://db/fleet?options=-c%20idle_in_transaction_session_timeout%3D5000';
    expect(systemDatabaseUrl(own)).toBe(own);
  });
});

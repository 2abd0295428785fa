-- The tables of leasehold-jdbc under their default names: the one place their DDL is written.
-- JdbcLocks and JdbcFenceGuard run these statements on first use (SchemaSql), with the configured
-- table name in place of leasehold_lease or leasehold_fence; docs/postgresql.md and docs/guards.md
-- quote them from here. A DBA who keeps CREATE from the application runs them instead.

-- tag::lease-table[]
CREATE SEQUENCE IF NOT EXISTS leasehold_lease_token;
CREATE TABLE IF NOT EXISTS leasehold_lease (
    name       text        NOT NULL,
    holder     text        NOT NULL,
    kind       text        NOT NULL,   -- x: exclusive, r: reader, w: waiting writer
    token      bigint      NOT NULL,
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (name, holder)
);
-- end::lease-table[]

-- tag::leader-table[]
CREATE TABLE IF NOT EXISTS leasehold_lease_leader (
    name       text        PRIMARY KEY,
    token      bigint      NOT NULL,
    leader_id  text        NOT NULL,
    value      text,                   -- NULL: nothing published
    expires_at timestamptz NOT NULL
);
-- end::leader-table[]

-- tag::break-table[]
CREATE TABLE IF NOT EXISTS leasehold_lease_break (
    name      text        NOT NULL,
    holders   text        NOT NULL,   -- redacted
    fence     bigint      NOT NULL,
    broken_by text        NOT NULL,
    reason    text        NOT NULL,
    broken_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
-- end::break-table[]

-- tag::fence-table[]
CREATE TABLE IF NOT EXISTS leasehold_fence (
    resource text   PRIMARY KEY,
    token    bigint NOT NULL
);
-- end::fence-table[]

-- Skillgate PostgreSQL stores, schema version 1. Applied by PostgresSchema.migrate (one transaction,
-- under an advisory lock); never edit an applied migration: add V2.
CREATE TABLE skillgate_workflow (
    id uuid PRIMARY KEY,
    owner_instance text NOT NULL,
    owner_host text NOT NULL,
    owner_pid bigint,
    owner_start_token text,
    fencing_token bigint NOT NULL CHECK (fencing_token >= 1),
    lease_expires_at timestamptz NOT NULL,
    record_count integer NOT NULL CHECK (record_count >= 0),
    created_at timestamptz NOT NULL,
    ended_at timestamptz
);
CREATE INDEX skillgate_workflow_ended ON skillgate_workflow (ended_at) WHERE ended_at IS NOT NULL;
CREATE TABLE skillgate_workflow_record (
    workflow_id uuid NOT NULL REFERENCES skillgate_workflow (id) ON DELETE CASCADE,
    sequence integer NOT NULL CHECK (sequence >= 0),
    schema_version integer NOT NULL CHECK (schema_version >= 1),
    fencing_token bigint NOT NULL CHECK (fencing_token >= 1),
    sealed bytea NOT NULL,
    PRIMARY KEY (workflow_id, sequence)
);
CREATE TABLE skillgate_policy (
    name text PRIMARY KEY,
    document bytea NOT NULL,
    version bigint NOT NULL CHECK (version >= 0),
    updated_at timestamptz NOT NULL
);
CREATE TABLE skillgate_audit_export (
    log_id char(32) NOT NULL,
    sequence bigint NOT NULL CHECK (sequence >= 1),
    previous_chain_hash text NOT NULL,
    chain_hash text NOT NULL,
    recorded_at timestamptz NOT NULL,
    event_type text NOT NULL,
    event text NOT NULL,
    instance text NOT NULL,
    exported_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (log_id, sequence)
);

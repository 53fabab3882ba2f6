-- Version 1 of the sync server's schema (DESIGN §25). Run by Install, under its advisory
-- lock, in one transaction, as the admin who runs `claude-mem sync init`.
--
-- Roles: claude_mem_user is the group every person belongs to (GRANT claude_mem_user TO
-- bob); claude_mem_admin may create teams and add and remove members. Neither logs in.
-- Every table has row-level security ENABLED and FORCED (its owner too is bound; a
-- superuser or a BYPASSRLS role is not, as PostgreSQL has it).

DO $$
BEGIN
	CREATE ROLE claude_mem_user NOLOGIN;
EXCEPTION WHEN duplicate_object OR unique_violation THEN
	-- Roles belong to the whole server: another database's install made it.
	NULL;
END $$;

DO $$
BEGIN
	CREATE ROLE claude_mem_admin NOLOGIN;
EXCEPTION WHEN duplicate_object OR unique_violation THEN
	NULL;
END $$;

-- The installer is an admin: it creates the first teams.
GRANT claude_mem_admin TO CURRENT_USER;

GRANT USAGE ON SCHEMA claude_mem TO claude_mem_user, claude_mem_admin;
GRANT SELECT ON claude_mem.schema_version TO PUBLIC;

CREATE SEQUENCE claude_mem.records_seq;

-- One row per record. owner is the role that inserted it: nobody may name it (no INSERT
-- privilege on the column) and the policy checks it. seq and txid order a pull: txid is the
-- writing transaction, so a pull reads only below the oldest running one that writes records
-- (every writer locks the table first) and never skips a transaction that commits later.
CREATE TABLE claude_mem.records (
	gid     uuid PRIMARY KEY,
	kind    text NOT NULL CHECK (kind IN ('session', 'observation', 'summary', 'prompt')),
	owner   text NOT NULL DEFAULT current_user,
	machine text NOT NULL,
	project text NOT NULL,
	session uuid,
	at      timestamptz NOT NULL,
	deleted boolean NOT NULL DEFAULT false,
	body    jsonb,
	seq     bigint NOT NULL DEFAULT nextval('claude_mem.records_seq'),
	txid    xid8 NOT NULL DEFAULT pg_current_xact_id(),
	CHECK (deleted = (body IS NULL))
);
ALTER SEQUENCE claude_mem.records_seq OWNED BY claude_mem.records.seq;
CREATE INDEX records_pull ON claude_mem.records (txid, seq);
CREATE INDEX records_shared ON claude_mem.records (owner, project, txid, seq);

-- Only a tombstone may change a row: it marks it deleted, clears its body and moves it to
-- the end of the pull order (a new seq and this transaction), so every puller sees it.
-- Every function here fixes its search_path: one a person sets (a schema of theirs first)
-- must not put their own nextval or pg_has_role in its place.
CREATE FUNCTION claude_mem.tombstone() RETURNS trigger LANGUAGE plpgsql
	SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	IF NOT NEW.deleted THEN
		RAISE EXCEPTION 'a record is only ever tombstoned' USING ERRCODE = 'check_violation';
	END IF;
	NEW.body := NULL;
	NEW.seq := nextval('claude_mem.records_seq');
	NEW.txid := pg_current_xact_id();
	RETURN NEW;
END $$;
CREATE TRIGGER records_tombstone BEFORE UPDATE ON claude_mem.records
	FOR EACH ROW EXECUTE FUNCTION claude_mem.tombstone();

CREATE TABLE claude_mem.teams (
	name       text PRIMARY KEY CHECK (name <> ''),
	created_by text NOT NULL DEFAULT current_user,
	created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE claude_mem.members (
	team   text NOT NULL REFERENCES claude_mem.teams ON DELETE CASCADE,
	person text NOT NULL,
	PRIMARY KEY (team, person)
);
CREATE INDEX members_person ON claude_mem.members (person);

-- A share opens one owner's rows of one project to one team. id is new for every share, so
-- a client's cursor can tell a share it has not seen and read that project from its start.
CREATE TABLE claude_mem.shares (
	id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	owner   text NOT NULL DEFAULT current_user,
	project text NOT NULL,
	team    text NOT NULL REFERENCES claude_mem.teams ON DELETE CASCADE,
	UNIQUE (owner, project, team)
);

-- in_team says whether the person connected (session_user) is a member of team. It is
-- SECURITY DEFINER because the policies of members must ask who else is in my team, which
-- reading members under its own policy cannot (a policy on a table may not read that
-- table: infinite recursion). It answers only about the caller, never about a name given.
-- session_user, not current_user: inside a SECURITY DEFINER function current_user is the
-- function's owner; a person connects as themself, and SET ROLE cannot change session_user.
CREATE FUNCTION claude_mem.in_team(t text) RETURNS boolean
	LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
	SELECT EXISTS (SELECT 1 FROM claude_mem.members m WHERE m.team = t AND m.person = session_user)
$$;
REVOKE ALL ON FUNCTION claude_mem.in_team(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION claude_mem.in_team(text) TO claude_mem_user, claude_mem_admin;

CREATE FUNCTION claude_mem.is_admin() RETURNS boolean LANGUAGE sql STABLE
	SET search_path = pg_catalog, pg_temp AS $$
	SELECT pg_has_role(current_user, 'claude_mem_admin', 'MEMBER')
$$;

ALTER TABLE claude_mem.records ENABLE ROW LEVEL SECURITY;
ALTER TABLE claude_mem.records FORCE ROW LEVEL SECURITY;
ALTER TABLE claude_mem.teams ENABLE ROW LEVEL SECURITY;
ALTER TABLE claude_mem.teams FORCE ROW LEVEL SECURITY;
ALTER TABLE claude_mem.members ENABLE ROW LEVEL SECURITY;
ALTER TABLE claude_mem.members FORCE ROW LEVEL SECURITY;
ALTER TABLE claude_mem.shares ENABLE ROW LEVEL SECURITY;
ALTER TABLE claude_mem.shares FORCE ROW LEVEL SECURITY;

-- A person reads their own rows, and the sessions, observations and summaries (never the
-- prompts) of the projects their owners shared with a team the person is in.
CREATE POLICY records_read ON claude_mem.records FOR SELECT USING (
	owner = current_user
	OR (kind <> 'prompt' AND (owner, project) IN (
		SELECT s.owner, s.project FROM claude_mem.shares s WHERE claude_mem.in_team(s.team))));
CREATE POLICY records_insert ON claude_mem.records FOR INSERT WITH CHECK (owner = current_user);
CREATE POLICY records_tombstone ON claude_mem.records FOR UPDATE
	USING (owner = current_user) WITH CHECK (owner = current_user AND deleted);

CREATE POLICY teams_read ON claude_mem.teams FOR SELECT USING (claude_mem.in_team(name) OR claude_mem.is_admin());
CREATE POLICY teams_create ON claude_mem.teams FOR INSERT WITH CHECK (claude_mem.is_admin() AND created_by = current_user);
CREATE POLICY teams_drop ON claude_mem.teams FOR DELETE USING (claude_mem.is_admin());

-- The installer (the tables' owner, bound by FORCE too) reads every membership: in_team runs
-- as that owner, and reading members under members_read would call in_team again, without end.
CREATE POLICY members_installer ON claude_mem.members FOR SELECT TO CURRENT_USER USING (true);
CREATE POLICY members_read ON claude_mem.members FOR SELECT
	USING (person = current_user OR claude_mem.in_team(team) OR claude_mem.is_admin());
CREATE POLICY members_add ON claude_mem.members FOR INSERT WITH CHECK (claude_mem.is_admin());
CREATE POLICY members_remove ON claude_mem.members FOR DELETE USING (claude_mem.is_admin());

CREATE POLICY shares_read ON claude_mem.shares FOR SELECT
	USING (owner = current_user OR claude_mem.in_team(team));
CREATE POLICY shares_add ON claude_mem.shares FOR INSERT
	WITH CHECK (owner = current_user AND claude_mem.in_team(team));
CREATE POLICY shares_remove ON claude_mem.shares FOR DELETE USING (owner = current_user);

-- Privileges: the first gate (RLS is the second). No DELETE on records for anyone: a
-- record is forgotten by a tombstone. No column of ownership or order is writable.
GRANT SELECT ON claude_mem.records TO claude_mem_user;
GRANT INSERT (gid, kind, machine, project, session, at, deleted, body) ON claude_mem.records TO claude_mem_user;
GRANT UPDATE (deleted, body) ON claude_mem.records TO claude_mem_user;
GRANT USAGE ON SEQUENCE claude_mem.records_seq TO claude_mem_user;
GRANT SELECT ON claude_mem.teams, claude_mem.members, claude_mem.shares TO claude_mem_user, claude_mem_admin;
GRANT INSERT (project, team), DELETE ON claude_mem.shares TO claude_mem_user;
GRANT INSERT (name), DELETE ON claude_mem.teams TO claude_mem_admin;
GRANT INSERT (team, person), DELETE ON claude_mem.members TO claude_mem_admin;

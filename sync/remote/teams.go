package remote

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// What a team operation can fail with besides the connection's errors.
var (
	ErrNoTeam     = errors.New("no such team")
	ErrTeamExists = errors.New("the team exists already")
	ErrNoPerson   = errors.New("no such person on the sync server (an admin makes the role and grants it claude_mem_user)")
)

// Team is a team this person can see, with the members and the shares they can see.
type Team struct {
	Name    string   `json:"name"`
	Members []string `json:"members"`
	Shares  []Shared `json:"shares"`
}

// Shared is one owner's project shared with a team.
type Shared struct {
	Owner   string `json:"owner"`
	Project string `json:"project"`
}

// CreateTeam makes team name; only an admin (claude_mem_admin) may.
func (c *Client) CreateTeam(ctx context.Context, name string) error {
	_, err := c.conn.Exec(ctx, "INSERT INTO claude_mem.teams (name) VALUES ($1)", name)
	return c.teamErr(err, name)
}

// AddMember puts person in team; only an admin may. Adding a member again changes nothing.
func (c *Client) AddMember(ctx context.Context, team, person string) error {
	var isPerson bool
	if err := c.conn.QueryRow(ctx, `SELECT CASE WHEN EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)
		THEN pg_has_role($1::name, 'claude_mem_user', 'MEMBER') ELSE false END`, person).Scan(&isPerson); err != nil {
		return c.fail(err)
	}
	if !isPerson {
		return fmt.Errorf("%w: %s", ErrNoPerson, person)
	}
	_, err := c.conn.Exec(ctx, "INSERT INTO claude_mem.members (team, person) VALUES ($1, $2) ON CONFLICT DO NOTHING", team, person)
	return c.teamErr(err, team)
}

// RemoveMember takes person out of team; only an admin may. What the person's machines
// already pulled stays there; the server returns nothing new of the team's projects.
func (c *Client) RemoveMember(ctx context.Context, team, person string) error {
	_, err := c.conn.Exec(ctx, "DELETE FROM claude_mem.members WHERE team = $1 AND person = $2", team, person)
	return c.teamErr(err, team)
}

// ListTeams lists the teams this person is in (every team for an admin), by name.
func (c *Client) ListTeams(ctx context.Context) ([]Team, error) {
	rows, err := c.conn.Query(ctx, `SELECT t.name,
		coalesce((SELECT array_agg(m.person ORDER BY m.person) FROM claude_mem.members m WHERE m.team = t.name), '{}'),
		coalesce((SELECT array_agg(s.owner ORDER BY s.owner, s.project) FROM claude_mem.shares s WHERE s.team = t.name), '{}'),
		coalesce((SELECT array_agg(s.project ORDER BY s.owner, s.project) FROM claude_mem.shares s WHERE s.team = t.name), '{}')
		FROM claude_mem.teams t ORDER BY t.name`)
	if err != nil {
		return nil, c.fail(err)
	}
	teams, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Team, error) {
		var t Team
		var owners, projects []string
		if err := r.Scan(&t.Name, &t.Members, &owners, &projects); err != nil {
			return t, err
		}
		t.Shares = []Shared{}
		for i := range owners {
			t.Shares = append(t.Shares, Shared{Owner: owners[i], Project: projects[i]})
		}
		return t, nil
	})
	if err != nil {
		return nil, c.fail(err)
	}
	return teams, nil
}

// Share opens this person's records of project (its key across machines) to team, which
// they must be in: its members read them from the project's start. Prompts never travel.
func (c *Client) Share(ctx context.Context, project, team string) error {
	_, err := c.conn.Exec(ctx, "INSERT INTO claude_mem.shares (project, team) VALUES ($1, $2) ON CONFLICT DO NOTHING", project, team)
	return c.teamErr(err, team)
}

// Unshare closes this person's project to team: the server returns its members nothing
// new of it; what their machines already pulled stays there.
func (c *Client) Unshare(ctx context.Context, project, team string) error {
	_, err := c.conn.Exec(ctx, "DELETE FROM claude_mem.shares WHERE project = $1 AND team = $2 AND owner = current_user", project, team)
	return c.teamErr(err, team)
}

func (c *Client) teamErr(err error, team string) error {
	var pe *pgconn.PgError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &pe) && pe.Code == "23503": // foreign key: no such team
		return fmt.Errorf("%w: %s", ErrNoTeam, team)
	case errors.As(err, &pe) && pe.Code == "23505" && pe.TableName == "teams":
		return fmt.Errorf("%w: %s", ErrTeamExists, team)
	}
	return c.fail(err)
}

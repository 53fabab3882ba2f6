package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/claude-mem/claude-mem-go/project"
	"github.com/claude-mem/claude-mem-go/selfcapture"
	"github.com/claude-mem/claude-mem-go/settings"
	"github.com/claude-mem/claude-mem-go/store"
	memsync "github.com/claude-mem/claude-mem-go/sync"
	"github.com/claude-mem/claude-mem-go/sync/remote"
)

// teamCommand is `claude-mem team create|add|remove|list`: the server's teams (DESIGN §25).
var teamCommand = &command{
	Name: "team", Operands: "create NAME | add NAME ROLE | remove NAME ROLE | list", Interspersed: true,
	Summary: "make a team on the sync server and say who is in it (create, add, remove: a claude_mem_admin role)",
	Flags: func(fs *flag.FlagSet) action {
		asJSON := fs.Bool("json", false, "list: print JSON")
		return func(p *proc, ops []string) int {
			want := map[string]int{"create": 2, "add": 3, "remove": 3, "list": 1}
			if len(ops) == 0 {
				return p.usageError("team", "create, add, remove or list")
			}
			n, ok := want[ops[0]]
			switch {
			case !ok:
				return p.usageError("team", fmt.Sprintf("unexpected %q", ops[0]))
			case len(ops) > n:
				return p.unexpected("team", ops[n:])
			case len(ops) < n:
				return p.usageError("team", fmt.Sprintf("team %s needs %s", ops[0], map[int]string{2: "a team name", 3: "a team name and a role"}[n]))
			case *asJSON && ops[0] != "list":
				return p.usageError("team", "--json goes with list")
			}
			return withServer(p, "team "+ops[0], func(ctx context.Context, c *remote.Client, _ *envState) error {
				switch ops[0] {
				case "create":
					if err := c.CreateTeam(ctx, ops[1]); err != nil {
						return err
					}
					fmt.Fprintf(p.stdout, "team %s created; add people with `claude-mem team add %s ROLE`\n", ops[1], ops[1])
				case "add":
					if err := c.AddMember(ctx, ops[1], ops[2]); err != nil {
						return err
					}
					fmt.Fprintf(p.stdout, "%s is in team %s: they read the projects shared with it\n", ops[2], ops[1])
				case "remove":
					if err := c.RemoveMember(ctx, ops[1], ops[2]); err != nil {
						return err
					}
					fmt.Fprintf(p.stdout, "%s is out of team %s: the server gives them nothing more of its projects (what their machines pulled stays there)\n", ops[2], ops[1])
				default:
					teams, err := c.ListTeams(ctx)
					if err != nil {
						return err
					}
					if *asJSON {
						if teams == nil {
							teams = []remote.Team{}
						}
						enc := json.NewEncoder(p.stdout)
						enc.SetIndent("", "  ")
						return enc.Encode(teams)
					}
					memsync.WriteTeams(p.stdout, teams)
				}
				return nil
			})
		}
	},
}

// shareCommand and unshareCommand open and close a project of one's own to a team.
var (
	shareCommand   = shareLike("share", "share a project of yours with a team on the sync server (this checkout's by default)")
	unshareCommand = shareLike("unshare", "stop sharing a project with a team: the team gets nothing new of it")
)

func shareLike(name, summary string) *command {
	return &command{
		Name: name, Operands: "[PROJECT]", Required: []string{"team"}, Interspersed: true, Summary: summary,
		Flags: func(fs *flag.FlagSet) action {
			team := fs.String("team", "", "the team `NAME`")
			return func(p *proc, ops []string) int {
				switch {
				case len(ops) > 1:
					return p.unexpected(name, ops[1:])
				case *team == "":
					return p.usageError(name, "--team is required")
				}
				return withServer(p, name, func(ctx context.Context, c *remote.Client, st *envState) error {
					key, err := projectKey(ctx, p, st, ops)
					if err != nil {
						return err
					}
					if name == "share" {
						if err := c.Share(ctx, key, *team); err != nil {
							return err
						}
						fmt.Fprintf(p.stdout, "%s is shared with team %s: its members read your sessions, observations and summaries of it (never your prompts)\n", key, *team)
						return nil
					}
					if err := c.Unshare(ctx, key, *team); err != nil {
						return err
					}
					fmt.Fprintf(p.stdout, "%s is no longer shared with team %s: they get nothing new of it (what their machines pulled stays there)\n", key, *team)
					return nil
				})
			}
		},
	}
}

// projectKey is the key the server knows a project by: the operand's (a local project's
// name, else a key as given) or, with none, the working directory's project.
func projectKey(ctx context.Context, p *proc, st *envState, ops []string) (string, error) {
	if len(ops) == 0 {
		home := settings.Home(p.env, p.goos)
		proj, err := project.Derive(p.cwd, project.Options{Home: home, GOOS: p.goos, Excluded: st.s.ExcludedProjects,
			Ours: selfcapture.Input{Env: p.env, Home: home, DataDir: st.s.DataDir, ExecutableDir: exeDir(p.exe)}})
		if err != nil {
			return "", fmt.Errorf("this directory's project: %w", err)
		}
		return project.Key(p.cwd, proj.Name), nil
	}
	name := project.Filter(ops[0])
	// A writer: the project's key, once found, is kept (store.SyncProjectKey).
	db, err := memoryOf(p, st).Write(ctx, "share")
	if err != nil {
		return "", err
	}
	defer db.Close()
	key, err := db.SyncProjectKey(ctx, name, project.Key)
	if !errors.Is(err, store.ErrNoProject) {
		return key, err
	}
	if strings.Contains(name, "/") {
		return name, nil // a key as the server knows it (github.com/acme/api)
	}
	return "", fmt.Errorf("%w: %s (name a project of `claude-mem stats`, or its key: github.com/OWNER/REPO)", store.ErrNoProject, name)
}

// withServer runs fn connected to the sync server, and turns its error into one line.
func withServer(p *proc, name string, fn func(context.Context, *remote.Client, *envState) error) int {
	st, ok := syncSetup(p, name)
	if !ok {
		return 1
	}
	defer st.closeLog.Close()
	ctx, stop := signalContext()
	defer stop()
	c, err := remote.Connect(ctx, st.s.SyncURL)
	if err == nil {
		err = fn(ctx, c, st)
		c.Close(context.Background())
	}
	if err != nil {
		fmt.Fprintf(p.stderr, "%s %s: %s\n", p.prog(), name, memsync.Message(&memsync.Error{Failure: memsync.Classify(err), Err: err}))
		return 1
	}
	return 0
}

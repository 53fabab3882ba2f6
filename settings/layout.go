package settings

import "path/filepath"

// Files and dirs inside the data dir (DESIGN.md §7). Paths are joined only by Layout.
const (
	SettingsFile = "settings.json"
	DotEnvFile   = ".env"
	DBFile       = "claude-mem.db"
	LogsDir      = "logs"
	SessionsDir  = "observer-sessions"
	ConfigDir    = "observer-config"
	LocksDir     = "locks"
	HealthFile   = "health.json"
	JournalDir   = "journal"
	LogFile      = "hook.log" // in LogsDir
	slotsDir     = "agents"   // in LocksDir
)

// dataDirEntries are what other packages read or write in the data dir, each checked
// (private.Lstat) by every Load so that one another user planted is named in SessionStart
// and doctor; each is also refused where it is opened (on the open fd). settings.json and
// .env are not here: Load reads them itself, through private.
var dataDirEntries = []string{
	DBFile, DBFile + "-wal", DBFile + "-shm", DBFile + "-journal", HealthFile,
	LogsDir, filepath.Join(LogsDir, LogFile), filepath.Join(LogsDir, LogFile+".1"),
	LocksDir, SessionsDir, ConfigDir, JournalDir,
}

// Layout is a data dir, and where each thing lives in it: every reader and writer takes
// its paths from here, so none can look for a file where another does not write it.
type Layout string

// Settings is settings.json.
func (l Layout) Settings() string { return l.join(SettingsFile) }

// DotEnv is the .env file of credential and proxy variables.
func (l Layout) DotEnv() string { return l.join(DotEnvFile) }

// DB is the database file.
func (l Layout) DB() string { return l.join(DBFile) }

// Health is health.json.
func (l Layout) Health() string { return l.join(HealthFile) }

// Logs is the log dir; Log the hook's log file in it.
func (l Layout) Logs() string { return l.join(LogsDir) }
func (l Layout) Log() string  { return l.join(LogsDir, LogFile) }

// Locks holds the per-session and the upgrade locks; Slots, in it, the agent slots'.
func (l Layout) Locks() string { return l.join(LocksDir) }
func (l Layout) Slots() string { return l.join(LocksDir, slotsDir) }

// SyncLock is held by the one sync run of the data dir (package sync).
func (l Layout) SyncLock() string { return l.join(LocksDir, "sync.lock") }

// Runs holds one dir per observer run (its cwd, transcript.jsonl, stderr.log).
func (l Layout) Runs() string { return l.join(SessionsDir) }

// ObserverConfig is the observer child's CLAUDE_CONFIG_DIR (empty, ours).
func (l Layout) ObserverConfig() string { return l.join(ConfigDir) }

// Journal is the capture journal's dir.
func (l Layout) Journal() string { return l.join(JournalDir) }

func (l Layout) join(name ...string) string {
	return filepath.Join(append([]string{string(l)}, name...)...)
}

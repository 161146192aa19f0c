package rpc

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/hashicorp/go-hclog"
)

// EnvLog is the environment variable that sets the level of the plugins'
// log lines the host shows (trace, debug, info, warn, error or off; warn
// when unset). A plugin is started with it too, and Serve logs at that
// level.
const EnvLog = "B14FS_PLUGIN_LOG"

// EnvPass is the environment variable that names, separated by commas, more
// variables of the host's environment to pass to plugins than passedEnv.
const EnvPass = "B14FS_PLUGIN_ENV"

// passedEnv are the variables of the host's environment a plugin gets: what
// a program needs to find its tools, its home and the user's directories of
// configuration, cache and data, its locale and its time zone, and the Go
// runtime's settings. No other: the host's environment holds secrets
// (B14FS_PASSWORD, AWS_*, SSH_AUTH_SOCK, tokens) that are no codec's
// business.
var passedEnv = []string{
	"PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "LC_*", "TZ", "TMPDIR",
	"XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME",
	"GOMAXPROCS", "GOGC", "GOMEMLIMIT", "GODEBUG", "GOTRACEBACK",
	EnvLog,
}

// pluginEnv returns the variables of environ that a plugin gets: those of
// passedEnv and those that extra (the value of EnvPass) names.
func pluginEnv(environ []string, extra string) []string {
	names := passedEnv
	for _, n := range strings.Split(extra, ",") {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names[:len(names):len(names)], n)
		}
	}
	var env []string
	for _, kv := range environ {
		key, _, ok := strings.Cut(kv, "=")
		if ok && passed(key, names) {
			env = append(env, kv)
		}
	}
	return env
}

// passed reports whether key is one of names, where a name ending in '*'
// stands for every key it begins.
func passed(key string, names []string) bool {
	for _, n := range names {
		if prefix, ok := strings.CutSuffix(n, "*"); ok && strings.HasPrefix(key, prefix) || key == n {
			return true
		}
	}
	return false
}

// logLevel reads the value of EnvLog; "" is the default level, def.
func logLevel(s string, def hclog.Level) (hclog.Level, error) {
	if s == "" {
		return def, nil
	}
	level := hclog.LevelFromString(s)
	if level == hclog.NoLevel {
		return 0, fmt.Errorf("%s=%s: want trace, debug, info, warn, error or off", EnvLog, cleanText(strconv.Quote(s), 80))
	}
	return level, nil
}

// serveLogLevel is the level a plugin logs at: that of EnvLog, or info.
func serveLogLevel() hclog.Level {
	level, err := logLevel(os.Getenv(EnvLog), hclog.Info)
	if err != nil {
		return hclog.Info
	}
	return level
}

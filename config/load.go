package config

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"
)

// EnvPrefix starts every environment variable Load reads.
const EnvPrefix = "KZADMIN_"

// EnvName returns the environment variable for a key: KZADMIN_ and the key
// upper-cased with dots as underscores (zookeeper.connect is
// KZADMIN_ZOOKEEPER_CONNECT). A key already starting with "kzadmin." does
// not repeat the prefix: kzadmin.dev is KZADMIN_DEV.
func EnvName(key string) string {
	key = strings.TrimPrefix(key, "kzadmin.")
	return EnvPrefix + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

// Source says which layer gave a key its value.
type Source int

// The layers, lowest precedence first.
const (
	SourceDefault Source = iota
	SourceFile
	SourceEnv
	SourceFlag
)

func (s Source) String() string {
	switch s {
	case SourceFile:
		return "file"
	case SourceEnv:
		return "env"
	case SourceFlag:
		return "flag"
	}
	return "default"
}

// LoadOptions says where Load reads from. Every field is optional.
type LoadOptions struct {
	// File is a Kafka-style .properties file. Empty: none.
	File string
	// Env is the environment as os.Environ returns it ("KEY=value").
	// Only KZADMIN_* variables are read. Nil reads none, so tests are not
	// affected by the process environment; the daemon passes os.Environ().
	Env []string
	// Flags is the caller's parsed flag set. Only flags the user set
	// override. A flag applies to a key when its name is the key
	// (--zookeeper.connect), the key with dashes (--zookeeper-connect), or
	// an alias in FlagAliases.
	Flags *pflag.FlagSet
	// FlagAliases maps further flag names to keys, e.g. "zookeeper" to
	// "zookeeper.connect" or "dev" to "kzadmin.dev".
	FlagAliases map[string]string
}

// Loaded is what Load returns.
type Loaded struct {
	Config Config
	// UnknownKeys are keys in the file that kzadmin does not know, sorted.
	// Kafka ignores unknown keys, so this is only worth a warning (a
	// broker's server.properties has many).
	UnknownKeys []string
	// UnknownEnv are KZADMIN_* variables that name no key, sorted.
	UnknownEnv []string
	// Sources says which layer set each key, for every key.
	Sources map[string]Source
}

// rawValue is one value for a key from one layer.
type rawValue struct {
	value  string
	origin string // e.g. "file a.properties:3" or "env KZADMIN_X"
}

// Load builds a Config from the defaults, then the file, then the
// environment, then the flags (later wins), and validates it. In dev mode
// (kzadmin.dev=true) node.id defaults to DevNodeID and log.format to
// console, unless set.
//
// The error lists every refused value (ValueErrors joined, each naming where
// its value came from). UnknownKeys, UnknownEnv and Sources are filled even
// then, so the caller can log them; Config is only meaningful without error.
func Load(opts LoadOptions) (Loaded, error) {
	res := Loaded{Sources: make(map[string]Source)}
	fileVals, listenerVals, unknown, err := readFile(opts.File)
	if err != nil {
		return res, err
	}
	res.UnknownKeys = unknown
	envVals, unknownEnv := readEnv(opts.Env)
	res.UnknownEnv = unknownEnv
	flagVals, err := readFlags(opts.Flags, opts.FlagAliases)
	if err != nil {
		return res, err
	}

	c, origins, errs := resolve(fileVals, envVals, flagVals, res.Sources)
	c = applyDevDefaults(c, res.Sources)
	c = withListenerProps(c, listenerVals)
	res.Config = c
	// Report every mistake at once: parse errors, then the validation
	// errors of the keys that did parse.
	failed := make(map[string]bool)
	for _, e := range errs {
		failed[e.Key] = true
	}
	for _, e := range c.validate() {
		if !failed[e.Key] {
			e.Origin = origins[e.Key]
			errs = append(errs, e)
		}
	}
	return res, joinValueErrors(errs)
}

// resolve layers the values with viper and parses each key's winning value
// into a Config. It records each key's layer in sources and returns where
// each value came from, for error messages.
func resolve(fileVals, envVals map[string]rawValue, flagVals map[string]*pflag.Flag,
	sources map[string]Source) (Config, map[string]string, []*ValueError) {
	// A fresh viper per Load, never the global one. Keys are flat: "::" as
	// the delimiter stops viper nesting Kafka's dotted keys. File and env
	// go into viper's config layer in that order, so env wins; set flags
	// are bound and win over both.
	v := viper.NewWithOptions(viper.KeyDelimiter("::"))
	_ = v.MergeConfigMap(valuesMap(fileVals)) // only fails on nil maps
	_ = v.MergeConfigMap(valuesMap(envVals))
	for key, f := range flagVals {
		_ = v.BindPFlag(key, f) // only fails on a nil flag
	}

	c := Default()
	var errs []*ValueError
	origins := make(map[string]string)
	for _, s := range keySpecs() {
		src, origin := SourceDefault, ""
		switch {
		case flagVals[s.name] != nil:
			src, origin = SourceFlag, "flag --"+flagVals[s.name].Name
		case envVals[s.name] != (rawValue{}):
			src, origin = SourceEnv, envVals[s.name].origin
		case fileVals[s.name] != (rawValue{}):
			src, origin = SourceFile, fileVals[s.name].origin
		}
		sources[s.name], origins[s.name] = src, origin
		if src == SourceDefault || !v.IsSet(s.name) {
			continue
		}
		raw := stringify(v.Get(s.name))
		if err := s.set(&c, raw); err != nil {
			errs = append(errs, &ValueError{Key: s.name, Value: shownValue(s.name, raw), Reason: err.Error(), Origin: origin})
		}
	}
	return c, origins, errs
}

// applyDevDefaults fills the keys dev mode defaults differently.
func applyDevDefaults(c Config, src map[string]Source) Config {
	if !c.Dev {
		return c
	}
	if src["node.id"] == SourceDefault {
		c.NodeID = DevNodeID
	}
	if src["log.format"] == SourceDefault {
		c.LogFormat = "console"
	}
	return c
}

// readFile parses the properties file into known keys (the last entry for
// a key wins), the listener-prefixed security keys, and the sorted unknown
// keys.
func readFile(path string) (vals, listenerVals map[string]rawValue, unknownKeys []string, err error) {
	vals = make(map[string]rawValue)
	listenerVals = make(map[string]rawValue)
	if path == "" {
		return vals, listenerVals, nil, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("config: read %s: %w", path, err)
	}
	props, err := parseProperties(string(data))
	if err != nil {
		return nil, nil, nil, fmt.Errorf("config: parse %s: %w", path, err)
	}
	unknown := make(map[string]bool)
	for _, p := range props {
		if strings.HasPrefix(p.Key, ListenerPrefix) && IsSecurityKey(p.Key) {
			listenerVals[p.Key] = rawValue{value: p.Value, origin: fmt.Sprintf("file %s:%d", path, p.Line)}
			continue
		}
		if _, ok := lookupSpec(p.Key); !ok {
			unknown[p.Key] = true
			continue
		}
		vals[p.Key] = rawValue{value: p.Value, origin: fmt.Sprintf("file %s:%d", path, p.Line)}
	}
	return vals, listenerVals, sortedKeys(unknown), nil
}

// readEnv picks the KZADMIN_* variables out of env.
func readEnv(env []string) (map[string]rawValue, []string) {
	byEnv := make(map[string]string)
	for _, s := range keySpecs() {
		byEnv[EnvName(s.name)] = s.name
	}
	vals := make(map[string]rawValue)
	unknown := make(map[string]bool)
	for _, kv := range env {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || !strings.HasPrefix(name, EnvPrefix) {
			continue
		}
		key, known := byEnv[name]
		if !known {
			unknown[name] = true
			continue
		}
		vals[key] = rawValue{value: value, origin: "env " + name}
	}
	return vals, sortedKeys(unknown)
}

// readFlags finds the flags the user set, by key. Two set flags for one key
// (say --zookeeper and --zookeeper.connect) are an error.
func readFlags(fs *pflag.FlagSet, aliases map[string]string) (map[string]*pflag.Flag, error) {
	out := make(map[string]*pflag.Flag)
	if fs == nil {
		return out, nil
	}
	names := make(map[string][]string) // key -> candidate flag names
	for _, s := range keySpecs() {
		names[s.name] = []string{s.name, strings.ReplaceAll(s.name, ".", "-")}
	}
	for flag, key := range aliases {
		if _, ok := names[key]; !ok {
			return nil, fmt.Errorf("config: flag alias --%s names unknown key %q", flag, key)
		}
		names[key] = append(names[key], flag)
	}
	for key, cands := range names {
		for _, n := range cands {
			f := fs.Lookup(n)
			if f == nil || !f.Changed {
				continue
			}
			if prev := out[key]; prev != nil && prev != f {
				return nil, fmt.Errorf("config: flags --%s and --%s both set %s", prev.Name, f.Name, key)
			}
			out[key] = f
		}
	}
	return out, nil
}

// AddFlags registers a string flag for every key on fs, named as the key
// (--zookeeper.connect), with its doc and default as usage. Load reads them
// when LoadOptions.Flags is fs.
func AddFlags(fs *pflag.FlagSet) {
	for _, k := range Keys() {
		fs.String(k.Name, k.Default, k.Doc+" (env "+k.Env+")")
	}
}

func valuesMap(vals map[string]rawValue) map[string]any {
	m := make(map[string]any, len(vals))
	for k, v := range vals {
		m[k] = v.value
	}
	return m
}

func sortedKeys(m map[string]bool) []string {
	if len(m) == 0 {
		return nil
	}
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

package cli

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kzadmin/kzadmin/cmd/kzadmin/backend"
	"github.com/kzadmin/kzadmin/zkadmin"
)

func (a *app) configsCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "configs",
		Short: "Describe and alter topic, broker and user configs (kafka-configs.sh)",
	}
	cmd.AddCommand(a.configsDescribe(), a.configsAlter())
	return group(cmd)
}

// entityFlags are kafka-configs' entity selectors: --entity-type with
// --entity-name or --entity-default, or its shorthands for quota entities,
// --user and --client (or their defaults), which together name a user's
// quotas for one client id. As in kafka-configs, --entity-type users and
// --entity-type clients may both be given, each with its own
// --entity-name or --entity-default, paired in the order given.
type entityFlags struct {
	types        []string
	slots        entitySlots // --entity-name and --entity-default, in order
	user, client string
	userDefaults bool
	clientDefs   bool
}

// entitySlot is one --entity-name (name) or --entity-default (dflt).
type entitySlot struct {
	name string
	dflt bool
}

// entitySlots collects --entity-name and --entity-default in the order
// they appear: kafka-configs pairs the n-th of them with the n-th
// --entity-type.
type entitySlots []entitySlot

// entitySlotFlag is the pflag.Value of --entity-name (dflt false) or
// --entity-default (dflt true), appending to one shared list.
type entitySlotFlag struct {
	slots *entitySlots
	dflt  bool
}

func (f entitySlotFlag) String() string { return "" }

func (f entitySlotFlag) Set(v string) error {
	if f.dflt {
		if v != "true" {
			return fmt.Errorf("--entity-default takes no value")
		}
		*f.slots = append(*f.slots, entitySlot{dflt: true})
		return nil
	}
	*f.slots = append(*f.slots, entitySlot{name: v})
	return nil
}

func (f entitySlotFlag) Type() string {
	if f.dflt {
		return "bool" // shown and parsed as a switch
	}
	return "string"
}

// entitySelection is what the flags select: an entity type, the names
// (none: all of the type), and, for a user's quotas for one client id,
// the client id.
type entitySelection struct {
	typ    string
	names  []string
	client string
}

func (e *entityFlags) add(f *pflag.FlagSet) {
	f.StringArrayVar(&e.types, "entity-type", nil, "topics, brokers, users, clients or ips; users and clients may both be given (repeat the flag), "+
		"each followed by its --entity-name or --entity-default, for a user's quotas for one client id")
	f.Var(entitySlotFlag{slots: &e.slots}, "entity-name", "the topic name, the broker id, the user name, the client id or the IP")
	f.Var(entitySlotFlag{slots: &e.slots, dflt: true}, "entity-default", "the cluster-wide broker defaults (/config/brokers/<default>), "+
		"or the default user, client id or IP quotas (/config/<type>/<default>)")
	f.Lookup("entity-default").NoOptDefVal = "true"
	f.StringVar(&e.user, "user", "", "a user's quotas and credentials; with --client, the user's quotas for that client id")
	f.StringVar(&e.client, "client", "", "a client id's quotas; with --user, the user's quotas for that client id")
	f.BoolVar(&e.userDefaults, "user-defaults", false, "the default user's quotas (as --user, for every user without its own)")
	f.BoolVar(&e.clientDefs, "client-defaults", false, "the default client id's quotas (as --client, for every client id without its own)")
}

// resolve returns what the flags select.
func (e entityFlags) resolve() (entitySelection, error) {
	shorthand := e.user != "" || e.client != "" || e.userDefaults || e.clientDefs
	if !shorthand {
		return e.resolveTypes()
	}
	if len(e.types) > 0 || len(e.slots) > 0 {
		return entitySelection{}, usagef("give --entity-type with --entity-name or --entity-default, or --user and --client, not both")
	}
	pick := func(name string, dflt bool, flag string) (string, error) {
		switch {
		case name != "" && dflt:
			return "", usagef("give --%s or --%s-defaults, not both", flag, flag)
		case dflt:
			return backend.DefaultEntity, nil
		}
		return name, nil
	}
	user, err := pick(e.user, e.userDefaults, "user")
	if err != nil {
		return entitySelection{}, err
	}
	client, err := pick(e.client, e.clientDefs, "client")
	if err != nil {
		return entitySelection{}, err
	}
	return userClientSelection(user, client), nil
}

// userClientSelection selects a user's quotas, a client id's, or, with
// both, the user's quotas for that client id.
func userClientSelection(user, client string) entitySelection {
	switch {
	case user != "" && client != "":
		return entitySelection{typ: "users", names: []string{user}, client: client}
	case user != "":
		return entitySelection{typ: "users", names: []string{user}}
	}
	return entitySelection{typ: "clients", names: []string{client}}
}

// entityTypeNames maps kafka-configs' entity types, and their singular
// forms, to kzadmin's.
var entityTypeNames = map[string]string{"topics": "topics", "topic": "topics", "brokers": "brokers", "broker": "brokers",
	"users": "users", "user": "users", "clients": "clients", "client": "clients", "ips": "ips", "ip": "ips"}

// resolveTypes resolves --entity-type with --entity-name or
// --entity-default: the entity type and names; none means all of the type.
func (e entityFlags) resolveTypes() (entitySelection, error) {
	types := make([]string, len(e.types))
	for i, t := range e.types {
		if types[i] = entityTypeNames[t]; types[i] == "" {
			return entitySelection{}, usagef("--entity-type must be topics, brokers, users, clients or ips, not %q", t)
		}
	}
	switch {
	case len(types) == 0:
		return entitySelection{}, usagef("--entity-type is required")
	case len(types) == 2 && types[0] == types[1]:
		return entitySelection{}, usagef("--entity-type %s is given twice", types[0])
	case len(types) == 2 && slices.Contains(types, "users") && slices.Contains(types, "clients"):
		return e.resolveUserClient(types)
	case len(types) > 1:
		return entitySelection{}, usagef("only the entity types users and clients may be given together")
	case len(e.slots) > 1:
		return entitySelection{}, usagef("give one --entity-name or --entity-default for each --entity-type")
	case len(e.slots) == 0:
		return entitySelection{typ: types[0]}, nil
	case e.slots[0].dflt && types[0] == "topics":
		return entitySelection{}, usagef("--entity-default applies to brokers, users, clients and ips only")
	case e.slots[0].dflt:
		return entitySelection{typ: types[0], names: []string{backend.DefaultEntity}}, nil
	case e.slots[0].name == "":
		return entitySelection{}, usagef("--entity-name must not be empty")
	}
	return entitySelection{typ: types[0], names: []string{e.slots[0].name}}, nil
}

// resolveUserClient resolves --entity-type users and --entity-type
// clients given together: the n-th --entity-name or --entity-default
// names the n-th type's entity, as kafka-configs pairs them.
func (e entityFlags) resolveUserClient(types []string) (entitySelection, error) {
	if len(e.slots) != 2 {
		// kafka-configs --describe would list every client id of the user
		// (or every user of the client id) here; kzadmin does not.
		return entitySelection{}, usagef("with --entity-type users and --entity-type clients, give an --entity-name or --entity-default for each")
	}
	var user, client string
	for i, slot := range e.slots {
		name := slot.name
		switch {
		case slot.dflt:
			name = backend.DefaultEntity
		case name == "":
			return entitySelection{}, usagef("--entity-name must not be empty")
		}
		if types[i] == "users" {
			user = name
		} else {
			client = name
		}
	}
	return userClientSelection(user, client), nil
}

func entityLabel(typ, name string) string {
	return entityClientLabel(typ, name, "")
}

// entityClientLabel labels an entity, or a user's quotas for client.
func entityClientLabel(typ, name, client string) string {
	if client != "" {
		label := entityLabel(typ, name) + ", client " + client
		if client == backend.DefaultEntity {
			label = entityLabel(typ, name) + ", clients <default>"
		}
		return label
	}
	switch {
	case typ == "brokers" && name == backend.DefaultEntity:
		return "brokers <default>"
	case typ == "brokers":
		return "broker " + name
	case name == backend.DefaultEntity:
		return typ + " <default>"
	case typ == "users":
		return "user " + name
	case typ == "clients":
		return "client " + name
	case typ == "ips":
		return "ip " + name
	}
	return "topic " + name
}

func (a *app) configsDescribe() *cobra.Command {
	var e entityFlags
	var all bool
	cmd := &cobra.Command{
		Use:   "describe (--entity-type topics|brokers|users|clients|ips [--entity-name NAME | --entity-default] [--all] | --user U [--client C] | --entity-type users --entity-name U --entity-type clients --entity-name C)",
		Short: "Show config overrides",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			sel, err := e.resolve()
			if err != nil {
				return err
			}
			typ, names := sel.typ, sel.names
			if all && typ != "topics" {
				return usagef("--all applies to topics only")
			}
			return a.withBackend(cmd, func(ctx context.Context, b backend.Backend) error {
				var entities []backend.EntityConfig
				if sel.client != "" {
					ec, err := b.DescribeUserClientConfigs(ctx, names[0], sel.client)
					if err != nil {
						return err
					}
					entities = []backend.EntityConfig{ec}
				} else if entities, err = b.DescribeConfigs(ctx, typ, names); err != nil {
					return err
				}
				var defaults map[string]string
				if all {
					d, err := b.DescribeConfigs(ctx, "brokers", []string{backend.DefaultEntity})
					if err != nil {
						return err
					}
					defaults = d[0].Overrides
				}
				return a.printConfigs(entities, all, defaults)
			})
		},
	}
	e.add(cmd.Flags())
	cmd.Flags().BoolVar(&all, "all", false, "also list every topic config with its default")
	return cmd
}

type configRow struct {
	Name   string `json:"name"`
	Value  string `json:"value"`
	Source string `json:"source"`
}

type entityJSON struct {
	EntityType string      `json:"entity_type"`
	Name       string      `json:"name"`
	Client     string      `json:"client,omitempty"`
	Configs    []configRow `json:"configs"`
	Error      string      `json:"error,omitempty"`
}

// configRows lists an entity's overrides, or with all every topic config,
// its value and where it comes from.
func configRows(ec backend.EntityConfig, all bool, defaults map[string]string) []configRow {
	rows := []configRow{}
	if !all {
		keys := make([]string, 0, len(ec.Overrides))
		for k := range ec.Overrides {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			rows = append(rows, configRow{k, ec.Overrides[k], "override"})
		}
		return rows
	}
	for _, d := range zkadmin.TopicConfigDefs() {
		r := configRow{Name: d.Name, Value: d.Default, Source: "Kafka default"}
		if v, ok := ec.Overrides[d.Name]; ok {
			r.Value, r.Source = v, "override"
		} else if v, ok := defaults[d.BrokerSynonym]; ok && d.BrokerSynonym != "" {
			r.Value, r.Source = v, "cluster default ("+d.BrokerSynonym+")"
		}
		rows = append(rows, r)
	}
	return rows
}

func (a *app) printConfigs(entities []backend.EntityConfig, all bool, defaults map[string]string) error {
	var bad []string
	var out []entityJSON
	tab := newTable(a.out, "ENTITY", "CONFIG", "VALUE", "SOURCE")
	for _, ec := range entities {
		label := entityClientLabel(ec.EntityType, ec.Name, ec.Client)
		j := entityJSON{EntityType: ec.EntityType, Name: ec.Name, Client: ec.Client, Configs: configRows(ec, all, defaults)}
		if ec.Err != nil {
			j.Error, j.Configs = ec.Err.Error(), []configRow{}
			bad = append(bad, label)
			tab.row(label, "-", "-", "error: "+ec.Err.Error())
		} else if len(j.Configs) == 0 {
			tab.row(label, "(no overrides)", "", "")
		}
		for _, r := range j.Configs {
			tab.row(label, r.Name, r.Value, r.Source)
		}
		out = append(out, j)
	}
	if a.jsonOutput() {
		if out == nil {
			out = []entityJSON{}
		}
		if err := a.printJSON(out); err != nil {
			return err
		}
	} else {
		tab.flush()
	}
	if len(bad) > 0 {
		return reported{fmt.Errorf("config of %s could not be read", strings.Join(bad, ", "))}
	}
	return nil
}

func (a *app) configsAlter() *cobra.Command {
	var e entityFlags
	var add string
	var del []string
	cmd := &cobra.Command{
		Use:   "alter (--entity-type topics|brokers|users|clients|ips (--entity-name NAME | --entity-default) | --user U [--client C] | --entity-type users --entity-name U --entity-type clients --entity-name C) [--add-config k=v,...] [--delete-config k,...]",
		Short: "Add, change or remove config overrides",
		Example: `  kzadmin configs alter --zookeeper zk:2181 --entity-type topics --entity-name orders --add-config retention.ms=3600000
  kzadmin configs alter --zookeeper zk:2181 --entity-type brokers --entity-default --add-config max.partitions=10000,max.broker.partitions=4000
  kzadmin configs alter --zookeeper zk:2181 --entity-type topics --entity-name orders --delete-config retention.ms
  kzadmin configs alter --zookeeper zk:2181 --entity-type users --entity-name alice --add-config 'SCRAM-SHA-256=[iterations=8192,password=alice-secret],SCRAM-SHA-512=[password=alice-secret]'
  kzadmin configs alter --zookeeper zk:2181 --entity-type users --entity-name alice --delete-config SCRAM-SHA-512
  kzadmin configs alter --bootstrap-server kafka:9092 --entity-type clients --entity-name app-1 --add-config producer_byte_rate=1048576
  kzadmin configs alter --bootstrap-server kafka:9092 --user alice --client app-1 --add-config consumer_byte_rate=2097152
  kzadmin configs alter --bootstrap-server kafka:9092 --entity-type users --entity-name alice --entity-type clients --entity-default --add-config request_percentage=50`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			sel, err := e.resolve()
			if err != nil {
				return err
			}
			typ, names := sel.typ, sel.names
			if len(names) == 0 {
				return usagef("--entity-name or --entity-default is required")
			}
			set, err := parseAddConfig(add)
			if err != nil {
				return err
			}
			req := backend.AlterConfigsRequest{EntityType: typ, Name: names[0], Client: sel.client, Set: set, Delete: parseNames(del),
				DryRun: a.g.DryRun}
			if sel.client != "" {
				if err := noScramFor(req); err != nil {
					return err
				}
			} else if typ == "users" {
				if req.Scram, err = prepareUserConfigs(set); err != nil {
					return err
				}
			}
			if len(req.Set) == 0 && len(req.Delete) == 0 && len(req.Scram) == 0 {
				return usagef("nothing to do: give --add-config or --delete-config")
			}
			return a.withBackend(cmd, func(ctx context.Context, b backend.Backend) error {
				res, err := b.AlterConfigs(ctx, req)
				if err != nil {
					return err
				}
				return a.result(res, res.Writes, func() {
					if req.Name == backend.DefaultEntity && req.Client == "" {
						fmt.Fprintf(a.out, "Completed updating default config for %s in the cluster.\n", typ)
					} else {
						fmt.Fprintf(a.out, "Completed updating config for %s.\n", entityClientLabel(typ, req.Name, req.Client))
					}
				})
			})
		},
	}
	e.add(cmd.Flags())
	cmd.Flags().StringVar(&add, "add-config", "", "configs to set: k1=v1,k2=[v2,v3] (square brackets for list values)")
	cmd.Flags().StringArrayVar(&del, "delete-config", nil, "config names to remove: k1,k2")
	return cmd
}

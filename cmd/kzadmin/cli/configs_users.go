package cli

import (
	"github.com/kzadmin/kzadmin/security/scram"
)

// prepareUserConfigs turns the SCRAM password specs of --add-config
// ("SCRAM-SHA-256=[iterations=8192,password=secret]") into the stored
// credentials Kafka keeps in /config/users/<user>, with a fresh salt, as
// kafka-configs does before it writes: the password itself never reaches
// ZooKeeper. Quota configs pass through. Over --bootstrap-server Kafka
// uses AlterUserScramCredentials and AlterClientQuotas, which kzadmind
// does not serve, so user configs need --zookeeper.
func (a *app) prepareUserConfigs(set map[string]string) error {
	if a.g.BootstrapServer != "" {
		return usagef("--entity-type users is not supported over --bootstrap-server; use --zookeeper")
	}
	for k, v := range set {
		m, ok := scram.MechanismByName(k)
		if !ok {
			continue
		}
		c, err := scram.ParsePasswordSpec(m, v)
		if err != nil {
			return usagef("--add-config %s: %v", k, err)
		}
		set[k] = c.String()
	}
	return nil
}

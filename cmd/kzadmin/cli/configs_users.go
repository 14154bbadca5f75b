package cli

import (
	"github.com/kzadmin/kzadmin/cmd/kzadmin/backend"
	"github.com/kzadmin/kzadmin/security/scram"
)

// prepareUserConfigs takes the SCRAM password specs out of --add-config
// ("SCRAM-SHA-256=[iterations=8192,password=secret]") and salts each
// password with a fresh salt, as kafka-configs does before it sends or
// writes anything: the password itself never leaves this process. The
// ZooKeeper backend stores the credential derived from the salted
// password in /config/users/<user>; the wire backend sends it in
// AlterUserScramCredentials. Quota configs stay in set.
func prepareUserConfigs(set map[string]string) (map[string]scram.SaltedPassword, error) {
	var out map[string]scram.SaltedPassword
	for k, v := range set {
		m, ok := scram.MechanismByName(k)
		if !ok {
			continue
		}
		sp, err := scram.SaltPasswordSpec(m, v)
		if err != nil {
			return nil, usagef("--add-config %s: %v", k, err)
		}
		if out == nil {
			out = map[string]scram.SaltedPassword{}
		}
		out[k] = sp
		delete(set, k)
	}
	return out, nil
}

// noScramFor refuses SCRAM credentials for a user's quotas for one client
// id: credentials belong to the user alone.
func noScramFor(req backend.AlterConfigsRequest) error {
	for k := range req.Set {
		if _, ok := scram.MechanismByName(k); ok {
			return usagef("%s: SCRAM credentials belong to a user, not to a user's client id: drop --client", k)
		}
	}
	for _, k := range req.Delete {
		if _, ok := scram.MechanismByName(k); ok {
			return usagef("%s: SCRAM credentials belong to a user, not to a user's client id: drop --client", k)
		}
	}
	return nil
}

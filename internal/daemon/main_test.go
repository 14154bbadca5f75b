package daemon

import (
	"os"
	"testing"

	"github.com/kzadmin/kzadmin/integration/zktest"
)

// sharedZK is the package's one ZooKeeper server, started by the first test
// that needs it (most tests here need none); each test works under its own
// chroot.
var sharedZK zktest.Shared

func TestMain(m *testing.M) { os.Exit(sharedZK.Run(m)) }

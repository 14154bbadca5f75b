package zkserver

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ClasspathEnv overrides where the ZooKeeper jars are found.
const ClasspathEnv = "KZADMIN_ZK_CLASSPATH"

// debianJars are the jars of the Debian `zookeeper` package that the server
// needs: the server, its jute records, slf4j over log4j 1.2, and netty
// (libnetty-java's netty-all.jar is only a POM naming the modules, so the
// modules the secure client port runs on are listed too).
var debianJars = []string{
	"zookeeper.jar", "zookeeper-jute.jar", "slf4j-api.jar",
	"slf4j-log4j12.jar", "log4j-1.2.jar", "netty-all.jar",
	"netty-buffer.jar", "netty-codec.jar", "netty-common.jar", "netty-handler.jar",
	"netty-resolver.jar", "netty-transport.jar", "netty-transport-native-unix-common.jar",
}

const debianJarDir = "/usr/share/java"

// Classpath returns the Java classpath of a ZooKeeper 3.8 server: the value
// of KZADMIN_ZK_CLASSPATH when set, otherwise the Debian package's jars.
func Classpath() (string, error) {
	if cp := os.Getenv(ClasspathEnv); cp != "" {
		return cp, nil
	}
	var parts []string
	var missing []string
	for _, jar := range debianJars {
		p := filepath.Join(debianJarDir, jar)
		if _, err := os.Stat(p); err != nil {
			missing = append(missing, p)
			continue
		}
		parts = append(parts, p)
	}
	if len(missing) > 0 {
		return "", fmt.Errorf("zookeeper jars not found (%s); install the Debian package with `apt-get install -y zookeeper` or set %s: %w",
			strings.Join(missing, ", "), ClasspathEnv, errors.ErrUnsupported)
	}
	return strings.Join(parts, string(os.PathListSeparator)), nil
}

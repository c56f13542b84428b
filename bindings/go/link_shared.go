//go:build !kuatia_static

package kuatia

// Links the shared libkuatia found by pkg-config (kuatia.pc, installed by scripts/install-c.sh under a prefix).
// When the prefix is not on the loader's path, add CGO_LDFLAGS="-Wl,-rpath,<prefix>/lib" or set LD_LIBRARY_PATH.

/*
#cgo pkg-config: kuatia
*/
import "C"

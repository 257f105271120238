//go:build linux || darwin || freebsd

package store

import "syscall"

// statfsFree is the space an unprivileged writer may still use on the file
// system holding dir (f_bavail, as df's "Avail" column).
func statfsFree(dir string) (int64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return int64(st.Bavail) * int64(st.Bsize), nil
}

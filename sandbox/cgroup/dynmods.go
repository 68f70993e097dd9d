package cgroup

// Dynmods is what FavorDynmods found and did.
type Dynmods struct {
	// Mount is the cgroup2 mount point whose superblock carries the option ("" when the
	// host has no cgroup2 mount: nothing was done).
	Mount string
	// Already: the option was set before; Enabled: FavorDynmods set it now. Either way
	// it stays set when the pool closes (see FavorDynmods).
	Already, Enabled bool
}

// On reports whether joins are cheap now.
func (d Dynmods) On() bool { return d.Already || d.Enabled }

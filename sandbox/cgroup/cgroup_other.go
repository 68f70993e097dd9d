//go:build !linux

package cgroup

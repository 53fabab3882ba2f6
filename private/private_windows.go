//go:build windows

package private

import "io/fs"

// NoFollow: Windows opens no symlink as a file here; the ACLs of the user's profile dirs
// keep other users out, and the mode bits mean nothing there.
const NoFollow = 0

const groupWritable = false

func owner(fs.FileInfo) (int, bool) { return 0, false }

func euid() int { return -1 }

func group(fs.FileInfo) (int, bool) { return 0, false }

func egid() int { return -1 }

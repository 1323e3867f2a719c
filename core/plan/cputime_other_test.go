//go:build !unix

package plan

import "time"

func processCPU() time.Duration { return 0 }

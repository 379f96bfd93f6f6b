// Package slab hands out zeroed cells cut from chunks. It sits beside the
// flow rather than in it: the builders and planners of a first call (the
// hlo builder's ops, fx's call nodes, lazy's IR copies, the host planner's
// op contexts) make thousands of small records that live and die with one
// module or program, and a Slab lets them pay one allocation per chunk
// rather than one per record. It imports the standard library only, so
// every package may use it.
package slab

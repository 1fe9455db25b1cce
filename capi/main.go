// Command capi is loom's C ABI: built with -buildmode=c-shared or
// -buildmode=c-archive, it exports the functions of loom.h over package
// loom. Simulations are integer handles into a table (no Go pointer ever
// reaches C, as cgo's pointer rules require); body, obstacle and strand
// handles are package loom's, generations included; buffers are the
// caller's memory, written during the call only; errors are status codes
// with the message in loom_last_error. capi/example holds a C program that
// uses it and a script that builds and runs it.
//
// Built without cgo, it is an empty program.
package main

func main() {}

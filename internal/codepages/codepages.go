package codepages

// Stats reports what Release did.
type Stats struct {
	// Mappings is the number of private read-only mappings of the file
	// that were looked at (Go's text and read-only data: usually 2).
	Mappings int
	// Released is the number of bytes of those mappings that were mapped
	// and were dropped from the page tables.
	Released int64
	// Kept is the number of bytes that were mapped but were anonymous
	// copies (a page written by a debugger or an uprobe), left in place.
	Kept int64
}

// Release drops from the process's page tables every page of its own
// executable (/proc/self/exe) that is mapped, read-only and still the
// file's own page; see the package documentation. A mapping is the
// executable's when /proc/self/maps gives it the executable's device and
// inode, or its path (on overlayfs the device and inode differ). Pages stay in the page
// cache; the next access to one maps it again. It is safe to call at any
// time from any goroutine, and costs about a millisecond for aggsim's
// binary (one pass over /proc/self/maps and the mappings' pagemap
// entries, one madvise per run of mapped pages).
//
// Upstream has no counterpart: kube-apiserver keeps its start-up pages
// mapped (its idle RSS is 279 MiB).
//
// Errors: errors.ErrUnsupported where /proc/self/pagemap does not exist
// (other than Linux); otherwise the error of reading /proc or of madvise,
// wrapped, after which some pages may have been dropped (Stats says how
// many). Nothing it does can change what the process reads from the pages.
func Release() (Stats, error) { return release() }

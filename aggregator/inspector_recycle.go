package aggregator

// Recycling the inspector's records (issue 21). Every request the chain
// serves gets an inspection, about 0.9 KiB with pointers; with the ring
// full, each new one drops the oldest. Allocating them was a third of the
// bytes the chain allocated for GET /apis, and the garbage collector's
// work grows with the bytes allocated, so the record the ring drops is
// handed to the next request instead. A dropped record is reused only
// when nothing can still read it: view copies everything that points into
// it, subscribers get views, and Requests, which builds views outside the
// lock, stops recycling while it runs (viewing).

// newInspection returns a zeroed inspection, a recycled one when there is.
func (in *Inspector) newInspection() *inspection {
	if ins, ok := in.free.Get().(*inspection); ok {
		*ins = inspection{}
		return ins
	}
	return new(inspection)
}

// recycle hands ins, which the ring just dropped (nil: the ring was not
// full yet), to a later newInspection unless a Requests call may still
// read it. in.mu must be held.
func (in *Inspector) recycle(ins *inspection) {
	if ins != nil && in.viewing == 0 {
		in.free.Put(ins)
	}
}

// doneViewing ends what Requests began with viewing++.
func (in *Inspector) doneViewing() {
	in.mu.Lock()
	in.viewing--
	in.mu.Unlock()
}

// copyOf returns a pointer to a copy of *p, or nil for nil.
func copyOf[T any](p *T) *T {
	if p == nil {
		return nil
	}
	c := *p
	return &c
}

//! A hint to the system: back a large buffer with huge pages (2 MB on x86-64 Linux)
//! instead of 4 KB ones.
//!
//! The tables' work arrays and the solver's transposition table are read at random over
//! hundreds of megabytes to gigabytes. With 4 KB pages nearly every such read also misses
//! the processor's address-translation cache and walks the page tables; with 2 MB pages the
//! translations of a gigabyte fit that cache. Linux grants huge pages to a range that
//! asks for them (`madvise(MADV_HUGEPAGE)`) when transparent huge pages are enabled in
//! `madvise` or `always` mode; elsewhere the hint does nothing, and nothing depends on it
//! but speed.

/// Asks for huge pages under the part of `buf` that covers whole aligned huge pages.
/// Best called before the buffer is first written (the pages are then faulted in huge);
/// never changes the buffer's contents.
pub(crate) fn advise<T>(buf: &[T]) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = buf.as_ptr() as usize;
        let end = start + std::mem::size_of_val(buf);
        let (a, b) = (start.next_multiple_of(HUGE), end / HUGE * HUGE);
        if b > a {
            // SAFETY: madvise with MADV_HUGEPAGE on whole pages inside memory this process
            // owns only changes how the kernel backs them; contents and validity stay. An
            // error (huge pages disabled, an old kernel) leaves the pages as they were.
            unsafe {
                libc::madvise(a as *mut libc::c_void, b - a, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = buf;
}

/// `n` values of all-zero bytes in memory advised for huge pages ([`advise`]). The system
/// hands out zero pages lazily, so a large buffer costs nothing until it is used.
///
/// # Safety
/// All-zero bytes must be a valid `T` (an integer, an atomic integer, an array of them).
pub(crate) unsafe fn zeroed<T>(n: usize) -> Box<[T]> {
    if n == 0 || std::mem::size_of::<T>() == 0 {
        // SAFETY: (the caller's) all-zero bytes are a valid T, and a zero-sized T or an
        // empty slice needs no memory
        return (0..n).map(|_| unsafe { std::mem::zeroed() }).collect();
    }
    let layout = std::alloc::Layout::array::<T>(n).expect("a buffer that fits");
    // SAFETY: the layout is not empty; the caller vouches that all-zero bytes are a valid
    // T; the memory comes from the global allocator with this layout, which is how the Box
    // frees it.
    let slice = unsafe {
        let p = std::alloc::alloc_zeroed(layout) as *mut T;
        if p.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        Box::from_raw(std::ptr::slice_from_raw_parts_mut(p, n))
    };
    advise(&slice);
    slice
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

    #[test]
    fn zeroed_buffers_read_zero_and_keep_what_is_written() {
        // several huge pages' worth, and the empty and tiny cases
        for n in [0usize, 1, 3, 1 << 20] {
            // SAFETY: all-zero bytes are an AtomicU64 holding 0
            let b = unsafe { super::zeroed::<AtomicU64>(n) };
            assert_eq!(b.len(), n);
            assert!(b.iter().all(|x| x.load(Relaxed) == 0));
            if let Some(last) = b.last() {
                last.store(7, Relaxed);
                assert_eq!(b[n - 1].load(Relaxed), 7);
            }
        }
        // the hint on a buffer already written changes nothing in it
        let v: Vec<u8> = (0..(5 << 20)).map(|i| i as u8).collect();
        super::advise(&v);
        assert!(v.iter().enumerate().all(|(i, &x)| x == i as u8));
    }
}

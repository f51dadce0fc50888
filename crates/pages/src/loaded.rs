//! The shared objects loaded in this process, from the loader itself
//! (`dl_iterate_phdr`), each made permanent before its segments are kept.

use std::ffi::{CStr, CString, c_int, c_void};

use super::FileRange;

/// One loaded object: its name as the loader knows it (empty for the
/// program) and the address ranges of its loadable segments.
#[derive(Debug)]
struct Object {
    name: CString,
    segments: Vec<(usize, usize)>,
}

/// The segments of the program and of every shared object that could be
/// made permanent.
pub(super) fn pinned_segments() -> Vec<FileRange> {
    let mut ranges = Vec::new();
    for object in loaded_objects() {
        if !object.name.is_empty() && !pin(&object.name) {
            continue;
        }
        ranges.extend(object.segments.into_iter().map(|(start, end)| FileRange {
            start,
            end,
            file: None,
        }));
    }
    ranges
}

/// Makes an already loaded object permanent; whether it is (an object that
/// is not loaded, such as the kernel's vDSO by name, is not loaded by this).
fn pin(name: &CStr) -> bool {
    // SAFETY: `name` is a valid C string. With RTLD_NOLOAD the loader loads
    // nothing (no constructor runs); it finds the object already loaded and
    // sets RTLD_NODELETE on it, so no later `dlclose` unmaps it. The handle
    // is never closed: the object stays for the process's life, as asked.
    let handle = unsafe {
        libc::dlopen(
            name.as_ptr(),
            libc::RTLD_LAZY | libc::RTLD_NOLOAD | libc::RTLD_NODELETE,
        )
    };
    !handle.is_null()
}

/// The loader's list of loaded objects.
fn loaded_objects() -> Vec<Object> {
    let page = rustix::param::page_size();
    let mut objects: Vec<Object> = Vec::new();
    // SAFETY: the callback receives valid `dl_phdr_info` records for the
    // duration of each call and `data` is the `objects` vector borrowed
    // mutably for the whole iteration, which runs on this thread.
    unsafe {
        libc::dl_iterate_phdr(Some(each_object), (&raw mut objects).cast::<c_void>());
    }
    for object in &mut objects {
        for segment in &mut object.segments {
            segment.0 -= segment.0 % page;
            segment.1 = segment.1.div_ceil(page) * page;
        }
    }
    objects
}

/// `dl_iterate_phdr`'s callback: records one object and goes on.
unsafe extern "C" fn each_object(
    info: *mut libc::dl_phdr_info,
    _size: libc::size_t,
    data: *mut c_void,
) -> c_int {
    // SAFETY: see `loaded_objects`: `info` is valid during this call and
    // `data` is the vector it passed.
    let (info, objects) = unsafe { (&*info, &mut *data.cast::<Vec<Object>>()) };
    let name = if info.dlpi_name.is_null() {
        CString::default()
    } else {
        // SAFETY: a non-null `dlpi_name` is a C string the loader owns.
        unsafe { CStr::from_ptr(info.dlpi_name) }.to_owned()
    };
    let headers = if info.dlpi_phdr.is_null() {
        &[][..]
    } else {
        // SAFETY: `dlpi_phdr` points at `dlpi_phnum` program headers.
        unsafe { std::slice::from_raw_parts(info.dlpi_phdr, usize::from(info.dlpi_phnum)) }
    };
    let base = info.dlpi_addr as usize;
    let segments = headers
        .iter()
        .filter(|header| header.p_type == libc::PT_LOAD && header.p_memsz > 0)
        .map(|header| {
            let start = base.wrapping_add(header.p_vaddr as usize);
            (start, start.wrapping_add(header.p_memsz as usize))
        })
        .collect();
    objects.push(Object { name, segments });
    0
}

//! The loops yield the CPU to the API: `ward serve` answers requests and streams
//! events from a thread of its own at the default priority, and runs the sessions'
//! loops on the runtime's workers, which start at a lower one. With every core busy
//! running loops (100 sessions on 2 cores), the kernel still runs the API thread as
//! soon as a request arrives, instead of sharing the CPU with the loops equally.

/// How much lower (in nice steps) the loops' threads run than the API's.
pub const LOOP_NICE_STEPS: i32 = 5;

/// Lowers the calling thread's priority by [`LOOP_NICE_STEPS`]; meant for
/// `tokio::runtime::Builder::on_thread_start` of the runtime the loops run on. On
/// Linux, `setpriority(PRIO_PROCESS, 0)` applies to the calling thread alone (nice
/// values are per thread), so the thread that serves the API, started elsewhere,
/// keeps its own. Best effort: a priority that cannot be changed is left as it is.
pub fn lower_for_loops() {
    #[cfg(target_os = "linux")]
    {
        use rustix::process::{getpriority_process, setpriority_process};
        if let Ok(current) = getpriority_process(None) {
            let _ = setpriority_process(None, (current + LOOP_NICE_STEPS).min(19));
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use rustix::process::getpriority_process;

    #[test]
    fn only_the_calling_thread_is_lowered() {
        let before = getpriority_process(None).unwrap();
        let lowered = std::thread::spawn(|| {
            super::lower_for_loops();
            getpriority_process(None).unwrap()
        })
        .join()
        .unwrap();
        assert_eq!(lowered, (before + super::LOOP_NICE_STEPS).min(19));
        assert_eq!(
            getpriority_process(None).unwrap(),
            before,
            "this thread kept its own"
        );
    }
}

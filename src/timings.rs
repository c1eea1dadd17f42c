//! `--timings`: where a run spends its time, phase by phase.
//!
//! Off unless [`enable`] was called (one relaxed atomic load per phase when off). A phase is a
//! stretch of the run that the main thread waits for: its wall time, the CPU time the whole
//! process spent meanwhile (all threads, so `CPU / wall` says how many cores it kept busy), and
//! how many files it touched. A phase run more than once (each round of `--fix`, each follow-up
//! wave) adds up under its name. Per-file work done on the worker threads (reading, the
//! pre-filter, parsing) is summed over threads separately, as [`work`].

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use cpu_time::ProcessTime;

static ENABLED: AtomicBool = AtomicBool::new(false);
static RECORD: Mutex<Record> = Mutex::new(Record {
    start: None,
    phases: Vec::new(),
    work: Vec::new(),
});

struct Record {
    /// When [`enable`] was called: wall clock and process CPU.
    start: Option<(Instant, Option<ProcessTime>)>,
    phases: Vec<Phase>,
    work: Vec<(&'static str, Duration, usize)>,
}

/// One phase's totals.
#[derive(Debug, Clone, PartialEq)]
pub struct Phase {
    pub name: &'static str,
    pub wall: Duration,
    /// The process's CPU time during the phase (all threads); `None` where the platform could not
    /// say.
    pub cpu: Option<Duration>,
    pub files: usize,
    /// How many times the phase ran.
    pub runs: usize,
}

/// Start recording (for the rest of the process).
pub fn enable() {
    if let Ok(mut record) = RECORD.lock() {
        record.start = Some((Instant::now(), ProcessTime::try_now().ok()));
    }
    ENABLED.store(true, Ordering::Relaxed);
}

pub fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// Run `work` as the phase `name`; `files` says how many files it touched, from its result.
pub fn phase<T>(name: &'static str, work: impl FnOnce() -> T, files: impl Fn(&T) -> usize) -> T {
    if !enabled() {
        return work();
    }
    let wall = Instant::now();
    let cpu = ProcessTime::try_now().ok();
    let result = work();
    let wall = wall.elapsed();
    let cpu = cpu.and_then(|c| c.try_elapsed().ok());
    let files = files(&result);
    if let Ok(mut record) = RECORD.lock() {
        match record.phases.iter_mut().find(|p| p.name == name) {
            Some(phase) => {
                phase.wall += wall;
                phase.cpu = phase.cpu.zip(cpu).map(|(a, b)| a + b);
                phase.files += files;
                phase.runs += 1;
            }
            None => record.phases.push(Phase {
                name,
                wall,
                cpu,
                files,
                runs: 1,
            }),
        }
    }
    result
}

/// Run `task`, one file's share of the work `name`, on any thread; its wall time is added to
/// the work's total (summed over threads).
pub fn work<T>(name: &'static str, task: impl FnOnce() -> T) -> T {
    if !enabled() {
        return task();
    }
    let start = Instant::now();
    let result = task();
    let spent = start.elapsed();
    if let Ok(mut record) = RECORD.lock() {
        match record.work.iter_mut().find(|(n, _, _)| *n == name) {
            Some(entry) => {
                entry.1 += spent;
                entry.2 += 1;
            }
            None => record.work.push((name, spent, 1)),
        }
    }
    result
}

/// The phases recorded so far, in the order they first ran.
pub fn phases() -> Vec<Phase> {
    RECORD.lock().map(|r| r.phases.clone()).unwrap_or_default()
}

/// A phase keeps at most this many cores busy on average to count as serial.
const SERIAL: f64 = 1.25;

/// The table `--timings` prints on stderr; `None` when recording is off.
pub fn report() -> Option<String> {
    if !enabled() {
        return None;
    }
    let record = RECORD.lock().ok()?;
    let (start, start_cpu) = record.start?;
    let total_wall = start.elapsed();
    let total_cpu = start_cpu.and_then(|c| c.try_elapsed().ok());
    let name_width = record
        .phases
        .iter()
        .map(|p| label(p).chars().count())
        .chain(["phase".len(), "total".len()])
        .max()
        .unwrap_or(0);
    let mut out = format!(
        "Timings (CPU: all threads of the process; cores: CPU / wall)\n  {:<name_width$}  {:>10}  {:>10}  {:>5}  {:>6}\n",
        "phase", "wall", "CPU", "cores", "files"
    );
    let mut serial = Duration::ZERO;
    for phase in &record.phases {
        let cores = cores(phase.wall, phase.cpu);
        if cores.is_some_and(|c| c <= SERIAL) {
            serial += phase.wall;
        }
        out.push_str(&format!(
            "  {:<name_width$}  {:>10}  {:>10}  {:>5}  {:>6}\n",
            label(phase),
            millis(Some(phase.wall)),
            millis(phase.cpu),
            shown(cores),
            phase.files
        ));
    }
    // What no phase covers: start-up, configuration, and the gaps between phases.
    let covered: Duration = record.phases.iter().map(|p| p.wall).sum();
    let other_wall = total_wall.saturating_sub(covered);
    let other_cpu = total_cpu.zip(
        record
            .phases
            .iter()
            .map(|p| p.cpu)
            .sum::<Option<Duration>>(),
    );
    let other_cpu = other_cpu.map(|(total, phases)| total.saturating_sub(phases));
    let other_cores = cores(other_wall, other_cpu);
    if other_cores.is_some_and(|c| c <= SERIAL) {
        serial += other_wall;
    }
    out.push_str(&format!(
        "  {:<name_width$}  {:>10}  {:>10}  {:>5}\n",
        "other",
        millis(Some(other_wall)),
        millis(other_cpu),
        shown(other_cores),
    ));
    out.push_str(&format!(
        "  {:<name_width$}  {:>10}  {:>10}  {:>5}\n",
        "total",
        millis(Some(total_wall)),
        millis(total_cpu),
        shown(cores(total_wall, total_cpu)),
    ));
    let share = if total_wall.is_zero() {
        0.0
    } else {
        100.0 * serial.as_secs_f64() / total_wall.as_secs_f64()
    };
    out.push_str(&format!(
        "  serial (phases keeping at most {SERIAL} cores busy): {}, {share:.0}% of the wall time\n",
        millis(Some(serial)).trim_start()
    ));
    if !record.work.is_empty() {
        let parts: Vec<String> = record
            .work
            .iter()
            .map(|(name, spent, count)| {
                format!("{name} {} ({count})", millis(Some(*spent)).trim_start())
            })
            .collect();
        out.push_str(&format!(
            "  per file, summed over threads: {}\n",
            parts.join(", ")
        ));
    }
    Some(out)
}

fn label(phase: &Phase) -> String {
    if phase.runs > 1 {
        format!("{} (×{})", phase.name, phase.runs)
    } else {
        phase.name.to_string()
    }
}

fn cores(wall: Duration, cpu: Option<Duration>) -> Option<f64> {
    let cpu = cpu?;
    (!wall.is_zero()).then(|| cpu.as_secs_f64() / wall.as_secs_f64())
}

/// Cores kept busy, or `-` when unknown.
fn shown(cores: Option<f64>) -> String {
    cores.map_or("-".to_string(), |c| format!("{c:.2}"))
}

fn millis(duration: Option<Duration>) -> String {
    match duration {
        Some(d) => format!("{:.1} ms", d.as_secs_f64() * 1000.0),
        None => "-".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_add_up_under_their_name_and_the_report_shows_them() {
        enable();
        let sleep = || std::thread::sleep(Duration::from_millis(5));
        phase("test phase", sleep, |_| 2);
        phase("test phase", sleep, |_| 3);
        work("test work", sleep);
        let phases = phases();
        let recorded = phases
            .iter()
            .find(|p| p.name == "test phase")
            .cloned()
            .unwrap_or_else(|| panic!("{phases:?}"));
        assert_eq!((recorded.runs, recorded.files), (2, 5));
        assert!(recorded.wall >= Duration::from_millis(10), "{recorded:?}");
        // (Its CPU time is the process's: the other tests' threads count in it, so it says
        // nothing here of the sleeping phase.)
        let report = report().unwrap_or_default();
        assert!(report.contains("test phase (×2)"), "{report}");
        assert!(report.contains("test work "), "{report}");
        assert!(report.contains("serial (phases keeping"), "{report}");
    }
}

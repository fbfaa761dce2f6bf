//! The finished run of a command under test: its exit status and both streams, with the
//! assertions the command-line tests make on them.

use std::process::Output;

/// The result of one run of a binary.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn from(output: Output) -> Run {
        Run {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }

    /// Asserts the exit status and that every needle is in standard error, where the
    /// commands write their diagnostics and progress.
    #[track_caller]
    pub fn expect_stderr(&self, code: i32, needles: &[&str]) -> &Run {
        self.expect_status(code);
        for needle in needles {
            assert!(self.stderr.contains(needle), "`{needle}` not in the output:\n{}", self.stderr);
        }
        self
    }

    /// Asserts the exit status and that every needle is in either stream, for commands that
    /// also print results (the patches a check verified) on standard output.
    #[track_caller]
    pub fn expect_output(&self, code: i32, needles: &[&str]) -> &Run {
        self.expect_status(code);
        for needle in needles {
            assert!(
                self.stderr.contains(needle) || self.stdout.contains(needle),
                "`{needle}` not in the output:\n{}\n{}",
                self.stdout,
                self.stderr
            );
        }
        self
    }

    #[track_caller]
    fn expect_status(&self, code: i32) {
        assert_eq!(self.code, code, "exit status\nstdout:\n{}\nstderr:\n{}", self.stdout, self.stderr);
    }
}

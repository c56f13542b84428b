//! The service's [`Host`] in tests: a fixed clock the test advances, a deterministic generator, the sandbox
//! TEST-ONLY signer. Shared by the service tests (included with `#[path]`).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use kuatia_core::sign::{sandbox_test_signer, Signer, SoftwareSigner};
use kuatia_service::auth::Environment;
use kuatia_service::Host;
use time::OffsetDateTime;

/// 2025-03-10 13:11:00 UTC = 10:11 in Asunción.
pub const NOW_UTC: i64 = 1_741_612_260;

/// Clock, randomness and signer of a test.
pub struct TestHost {
    pub now: OffsetDateTime,
    pub state: u64,
    pub signer: Option<SoftwareSigner>,
}

impl TestHost {
    /// At [`NOW_UTC`], with the sandbox signer.
    pub fn new() -> TestHost {
        TestHost {
            now: OffsetDateTime::from_unix_timestamp(NOW_UTC).unwrap(),
            state: 0x9E37_79B9_7F4A_7C15,
            signer: Some(sandbox_test_signer().unwrap()),
        }
    }
    /// Moves the clock.
    pub fn advance(&mut self, secs: i64) {
        self.now += time::Duration::seconds(secs);
    }
}

impl Host for TestHost {
    fn now(&mut self) -> OffsetDateTime {
        self.now
    }
    fn random_u32(&mut self) -> u32 {
        // xorshift64*: deterministic for tests; hosts pass a CSPRNG.
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        (self.state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 32) as u32
    }
    fn signer(&self, _account: &str, _env: Environment) -> Option<&dyn Signer> {
        self.signer.as_ref().map(|s| s as &dyn Signer)
    }
}

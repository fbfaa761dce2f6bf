//! A carried registry package as data: its inputs as they are on disk now (the `carry` entry
//! and its series), what PROVENANCE records of it, the lines it adds to the build key, and what
//! differs between the two. The work copies built from it are [`super::carried`].

use super::description::{Backend, Carried};
use super::error::{BackendError, StaleReason};
use super::hash::FileHash;
use super::series::Series;

/// A carried package and its series as they are on disk now.
#[derive(Debug, Clone)]
pub struct CarriedInputs {
    pub carried: Carried,
    pub series: Series,
}

/// What PROVENANCE records of a carried package.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CarriedRecord {
    pub package: String,
    pub version: String,
    /// `NAME VERSION sha256:ARCHIVE`, the archive's sha256 as cargo recorded it.
    pub revision: String,
    pub series_sha256: String,
    /// The patches applied, in order, with their sha256.
    pub patches: Vec<FileHash>,
}

/// Reads the series of every package `backend` carries.
pub fn read_inputs(backend: &Backend) -> Result<Vec<CarriedInputs>, BackendError> {
    let read = |carried: &Carried| {
        let series = Series::read(&format!("{} ({})", backend.name, carried.package), &carried.patches)?;
        Ok(CarriedInputs { carried: carried.clone(), series })
    };
    backend.carried.iter().map(read).collect()
}

/// The lines the carried packages add to the build key.
pub fn key_lines(carried: &[CarriedInputs]) -> String {
    let mut text = String::new();
    for input in carried {
        let Carried { package, version, skip_tests, .. } = &input.carried;
        text.push_str(&format!(
            "carry {package} {version} series {} skip-tests {skip_tests:?}\n",
            input.series.sha256
        ));
        for patch in &input.series.patches {
            text.push_str(&format!("carry-patch {package} {} {}\n", patch.name, patch.sha256));
        }
    }
    text
}

/// What differs between the carried packages a build recorded and those described now.
pub fn differences(installed: &[CarriedRecord], now: &[CarriedInputs]) -> Vec<StaleReason> {
    let mut reasons = Vec::new();
    for input in now {
        let Carried { package, version, .. } = &input.carried;
        let change = match installed.iter().find(|record| &record.package == package) {
            None => Some(format!("{package} {version} is carried now but was not in the build")),
            Some(record) if &record.version != version => {
                Some(format!("{package} was built at {}, is carried at {version} now", record.version))
            }
            Some(record) if record.patches != input.series.file_hashes() => {
                let names =
                    |list: &[FileHash]| list.iter().map(|p| p.path.clone()).collect::<Vec<_>>().join(", ");
                Some(format!(
                    "{package}'s series changed: built with [{}], carries [{}] now",
                    names(&record.patches),
                    names(&input.series.file_hashes())
                ))
            }
            Some(record) if record.series_sha256 != input.series.sha256 => {
                Some(format!("{package}'s series file changed since the build"))
            }
            Some(_) => None,
        };
        reasons.extend(change.map(|change| StaleReason::Carried { change }));
    }
    for record in installed.iter().filter(|r| !now.iter().any(|i| i.carried.package == r.package)) {
        reasons.push(StaleReason::Carried { change: format!("{} is no longer carried", record.package) });
    }
    reasons
}

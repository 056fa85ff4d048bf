//! `/api/v1/problems`: the list, and a package upload (a `.tar`, `.tar.gz` or `.zip` of the
//! package folder's contents) checked whole before anything is stored.

use super::auth::Caller;
use super::{db, ApiError, Shared, MAX_ENTRIES, MAX_PACKAGE};
use crate::db::Sql;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};
use std::io::Read;

/// `GET /api/v1/problems`: every problem's name, package hash and when it last changed.
pub async fn list(_caller: Caller, State(state): State<Shared>) -> Result<Json<Value>, ApiError> {
    let rows = db(&state, |client| {
        Ok(client.query(
            "SELECT name, package, to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')
             FROM problems ORDER BY name",
            &[],
        )?)
    })
    .await?;
    let problems: Vec<Value> = rows
        .iter()
        .map(|r| {
            json!({
                "name": r.get::<_, String>(0),
                "package": r.get::<_, String>(1),
                "updated_at": r.get::<_, String>(2),
            })
        })
        .collect();
    Ok(Json(json!({ "problems": problems })))
}

#[derive(Deserialize)]
pub struct UploadQuery {
    name: Option<String>,
}

/// A problem's name: a folder name `judge run` would accept, and nothing a path could abuse.
fn check_name(name: &str) -> Result<(), ApiError> {
    crate::store::check_problem_name(name).map_err(ApiError::bad_request)
}

/// The archive as a plain tar: a gzip stream is decompressed, up to `limit` bytes.
fn plain_tar(body: &[u8], limit: u64) -> Result<Vec<u8>, ApiError> {
    if !body.starts_with(&[0x1f, 0x8b]) {
        return Ok(body.to_vec());
    }
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(body)
        .take(limit + 1)
        .read_to_end(&mut out)
        .map_err(|e| ApiError::bad_request(format!("the package is not a valid .tar.gz: {e}")))?;
    if out.len() as u64 > limit {
        return Err(ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "the package is larger than {} KiB once decompressed",
                limit >> 10
            ),
        ));
    }
    Ok(out)
}

/// Unpacks and loads the package in a scratch folder; returns it packed as `store::pack`
/// packs a folder, so the same package is the same blob whichever way it came.
pub fn check_package(name: &str, archive: &[u8]) -> Result<Vec<u8>, ApiError> {
    let scratch =
        tempfile::tempdir().map_err(|e| ApiError::internal(format!("a scratch folder: {e}")))?;
    let dir = scratch.path().join(name);
    if super::unzip::is_zip(archive) {
        let limits = super::unzip::Limits {
            bytes: MAX_PACKAGE,
            entries: MAX_ENTRIES,
        };
        super::unzip::unpack(archive, &dir, limits)?;
    } else {
        let tar = plain_tar(archive, MAX_PACKAGE)?;
        crate::store::unpack(&tar, &dir).map_err(|e| {
            ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                format!("the package archive is refused: {e}"),
            )
        })?;
    }
    judge_core::package::Problem::load(&dir).map_err(|e| {
        ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("the package does not load: {e}"),
        )
    })?;
    crate::store::pack(&dir).map_err(ApiError::from)
}

/// `POST /api/v1/problems?name=NAME`: stores the package (organisers only) and makes it the
/// problem's current one; `201 {"name", "package"}`.
pub async fn upload(
    caller: Caller,
    State(state): State<Shared>,
    Query(query): Query<UploadQuery>,
    body: Result<Bytes, BytesRejection>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    caller.organiser("uploading a problem")?;
    let name = query.name.ok_or_else(|| {
        ApiError::bad_request("the problem's name is missing: POST /api/v1/problems?name=NAME")
    })?;
    check_name(&name)?;
    let body = body?;
    if body.is_empty() {
        return Err(ApiError::bad_request(
            "the body is empty: send the package as a .tar, .tar.gz or .zip",
        ));
    }
    let checked = {
        let name = name.clone();
        tokio::task::spawn_blocking(move || check_package(&name, &body))
            .await
            .map_err(|e| ApiError::internal(format!("checking the package failed: {e}")))??
    };
    let hash = {
        let name = name.clone();
        db(&state, move |client| {
            Ok(crate::store::put_problem(client, &name, &checked)?)
        })
        .await?
    };
    Ok((
        StatusCode::CREATED,
        Json(json!({ "name": name, "package": hash })),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(data).unwrap();
        gz.finish().unwrap()
    }

    fn sum() -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/problems/sum")
    }

    #[test]
    fn a_package_as_tar_or_tar_gz_is_stored_as_the_same_blob() {
        let packed = crate::store::pack(&sum()).unwrap();
        assert_eq!(check_package("sum", &packed).unwrap(), packed);
        assert_eq!(check_package("sum", &gzip(&packed)).unwrap(), packed);
        // The same files zipped (through the tar's entries) are the same blob too.
        let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let mut tar = tar::Archive::new(packed.as_slice());
        for entry in tar.entries().unwrap() {
            let mut entry = entry.unwrap();
            let name = entry.path().unwrap().display().to_string();
            let mode = entry.header().mode().unwrap();
            let options = zip::write::SimpleFileOptions::default().unix_permissions(mode);
            zip.start_file(name, options).unwrap();
            std::io::copy(&mut entry, &mut zip).unwrap();
        }
        let zipped = zip.finish().unwrap().into_inner();
        assert_eq!(check_package("sum", &zipped).unwrap(), packed);
    }

    #[test]
    fn a_gzip_bomb_stops_at_the_limit_and_a_broken_gzip_is_a_bad_request() {
        let bomb = gzip(&vec![0; 64 << 10]);
        let err = plain_tar(&bomb, 16 << 10).map(|t| t.len()).unwrap_err();
        assert_eq!(err.status, StatusCode::PAYLOAD_TOO_LARGE);
        assert_eq!(
            err.detail,
            "the package is larger than 16 KiB once decompressed"
        );
        let err = plain_tar(b"\x1f\x8b not a gzip stream", 1 << 20)
            .map(|t| t.len())
            .unwrap_err();
        assert_eq!(err.status, StatusCode::BAD_REQUEST);
        assert!(
            err.detail.starts_with("the package is not a valid .tar.gz"),
            "{}",
            err.detail
        );
    }
}

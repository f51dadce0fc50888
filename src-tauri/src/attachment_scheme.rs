//! The `attachment:` URI scheme: the window loads image attachments
//! (thumbnails and full views) from here, never through commands or events.
//! Only images are served, with their stored type and `nosniff`; any other
//! path is 404. The CSP lets images come from here and the app itself only.

use pizza_host::Host;
use pizza_protocol::{ATTACHMENT_SCHEME, AttachmentKind, attachment_kind};
use tauri::http::{Request, Response, StatusCode, header};
use tauri::{Runtime, UriSchemeContext, UriSchemeResponder};

/// Registers the scheme on the app builder; without a host every request is 404.
pub(crate) fn register<R: Runtime>(
    builder: tauri::Builder<R>,
    host: Option<Host>,
) -> tauri::Builder<R> {
    builder.register_asynchronous_uri_scheme_protocol(
        ATTACHMENT_SCHEME,
        move |_ctx: UriSchemeContext<'_, R>,
              request: Request<Vec<u8>>,
              responder: UriSchemeResponder| {
            let host = host.clone();
            tauri::async_runtime::spawn(async move {
                responder.respond(answer(host.as_ref(), &request).await);
            });
        },
    )
}

async fn answer(host: Option<&Host>, request: &Request<Vec<u8>>) -> Response<Vec<u8>> {
    let id = request.uri().path().trim_start_matches('/');
    let Some(host) = host else {
        return status(StatusCode::NOT_FOUND);
    };
    let Some((path, mime)) = host.attachment_file(id).await else {
        return status(StatusCode::NOT_FOUND);
    };
    if attachment_kind(&mime) != AttachmentKind::Image {
        return status(StatusCode::NOT_FOUND);
    }
    match tokio::fs::read(&path).await {
        Ok(bytes) => Response::builder()
            .status(StatusCode::OK)
            .header(header::CONTENT_TYPE, mime)
            .header(header::X_CONTENT_TYPE_OPTIONS, "nosniff")
            // An id's bytes never change.
            .header(
                header::CACHE_CONTROL,
                "private, max-age=31536000, immutable",
            )
            .body(bytes)
            .unwrap_or_else(|_| status(StatusCode::INTERNAL_SERVER_ERROR)),
        Err(error) => {
            tracing::warn!(%error, id, "an attachment's file cannot be read");
            status(StatusCode::NOT_FOUND)
        }
    }
}

fn status(code: StatusCode) -> Response<Vec<u8>> {
    let mut response = Response::new(Vec::new());
    *response.status_mut() = code;
    response
}

//! The notification server on the session bus (`org.freedesktop.Notifications`, the Desktop
//! Notifications Specification), through zbus on tokio: its capabilities, a notification shown
//! and closed, its signals heard. What to show and which signals count is `desktop.rs`.

use super::desktop::{Heard, APP_NAME};
use futures_util::StreamExt;
use std::collections::HashMap;
use std::num::NonZeroUsize;
use std::time::Duration;
use zbus::message::Type;
use zbus::{connection, Connection, MatchRule, MessageStream, Variant};

const NAME: &str = "org.freedesktop.Notifications";
const PATH: &str = "/org/freedesktop/Notifications";
const INTERFACE: &str = "org.freedesktop.Notifications";
/// How long connecting, or one call to the bus, may take: a server that does not answer within
/// it is taken for none.
pub const CALL_LIMIT: Duration = Duration::from_millis(500);

/// The session bus, listening to the notification server's signals.
pub struct Server {
    connection: Connection,
    signals: MessageStream,
}

impl Server {
    /// Connects to the session bus (`$DBUS_SESSION_BUS_ADDRESS`) and listens to the signals of
    /// the notifications' interface from whoever owns its name (the bus daemon filters what it
    /// broadcasts; what is sent to this connection alone comes whatever its sender, and
    /// `desktop::meaning` checks it).
    pub async fn connect() -> zbus::Result<Server> {
        let connecting = connection::Builder::session()
            .method_timeout(CALL_LIMIT)
            .build();
        let connection = tokio::time::timeout(CALL_LIMIT, connecting)
            .await
            .map_err(|_| std::io::Error::from(std::io::ErrorKind::TimedOut))??;
        let rule = MatchRule::builder()
            .msg_type(Type::Signal)
            .sender(NAME)
            .path(PATH)
            .interface(INTERFACE)
            .build()?;
        let signals =
            MessageStream::for_match_rule(rule, &connection, NonZeroUsize::new(16)).await?;
        Ok(Server {
            connection,
            signals,
        })
    }

    /// `GetCapabilities`: `actions` when it shows buttons, `body-markup` when it reads markup…
    pub async fn capabilities(&self) -> zbus::Result<Vec<String>> {
        self.call("GetCapabilities", &())
            .await?
            .body()
            .deserialize()
    }

    /// `GetServerInformation`'s name and version (`dunst 1.9.0`).
    pub async fn name(&self) -> zbus::Result<String> {
        let reply = self.call("GetServerInformation", &()).await?;
        let (name, _vendor, version, _spec): (String, String, String, String) =
            reply.body().deserialize()?;
        Ok(format!("{name} {version}").trim().to_owned())
    }

    /// The unique name that owns the notifications' name now, if any.
    pub async fn owner(&self) -> Option<String> {
        let reply = self
            .connection
            .call_method(
                Some("org.freedesktop.DBus"),
                "/org/freedesktop/DBus",
                Some("org.freedesktop.DBus"),
                "GetNameOwner",
                &NAME,
            )
            .await
            .ok()?;
        reply.body().deserialize().ok()
    }

    /// `Notify`: a notification of `summary` and `body` with `buttons` (key, label), that stays
    /// until it is closed (the question ends) or the person dismisses it. Its id.
    pub async fn notify(
        &self,
        summary: &str,
        body: &str,
        buttons: &[(String, String)],
    ) -> zbus::Result<u32> {
        let actions: Vec<&str> = buttons
            .iter()
            .flat_map(|(key, label)| [key.as_str(), label.as_str()])
            .collect();
        let mut hints: HashMap<&str, Variant> = HashMap::new();
        // Normal urgency; the program it comes from.
        hints.insert("urgency", Variant::U8(1));
        hints.insert("desktop-entry", Variant::from(APP_NAME));
        let args = (APP_NAME, 0u32, "", summary, body, actions, hints, 0i32);
        self.call("Notify", &args).await?.body().deserialize()
    }

    /// `CloseNotification`: takes notification `id` off the screen.
    pub async fn close_notification(&self, id: u32) {
        let _ = self.call("CloseNotification", &id).await;
    }

    /// The next signal of the notifications' interface; None once the connection is closed.
    pub async fn next_signal(&mut self) -> Option<Heard> {
        loop {
            let Ok(message) = self.signals.next().await? else {
                continue;
            };
            let header = message.header();
            let member = header.member().map(|m| m.as_str().to_owned());
            let sender = header.sender().map(|s| s.as_str().to_owned());
            let body = message.body();
            let heard = match member.as_deref() {
                Some("ActionInvoked") => body
                    .deserialize::<(u32, String)>()
                    .ok()
                    .map(|(id, key)| (id, Some(key))),
                Some("NotificationClosed") => body
                    .deserialize::<(u32, u32)>()
                    .ok()
                    .map(|(id, _)| (id, None)),
                _ => None,
            };
            if let (Some(member), Some((id, key))) = (member, heard) {
                return Some(Heard {
                    sender,
                    member,
                    id,
                    key,
                });
            }
        }
    }

    /// Closes the connection (what it listened to ends).
    pub async fn close(self) {
        let _ = self.connection.close().await;
    }

    async fn call<B>(&self, method: &str, body: &B) -> zbus::Result<zbus::message::Message>
    where
        B: serde::Serialize + zbus::zvariant::DynamicType,
    {
        self.connection
            .call_method(Some(NAME), PATH, Some(INTERFACE), method, body)
            .await
    }
}

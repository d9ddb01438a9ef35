//! Capturing the library's `tracing` events in tests: a subscriber that records every event
//! (level and fields as text), for checking what warp-runtime reports without printing.

use std::sync::{Arc, Mutex, OnceLock};

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::Interest;
use tracing::{Dispatch, Event, Level, Metadata, Subscriber};

/// One captured event: its level and its fields, `message` included, as text; `span` is the
/// innermost span's name and fields when the event happened inside one.
#[derive(Clone, Debug)]
pub struct Captured {
    /// The level.
    pub level: Level,
    /// `(name, value)` of each field.
    pub fields: Vec<(String, String)>,
    /// The fields of the spans entered when it happened (outermost first).
    pub spans: Vec<(String, String)>,
}

impl Captured {
    /// The message.
    pub fn message(&self) -> &str {
        self.get("message").unwrap_or("")
    }
    /// A field's value.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .chain(&self.spans)
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// `(name, value)` pairs of an event's or a span's fields.
type FieldList = Vec<(String, String)>;

/// The subscriber: every event of every level, with the fields of the entered spans.
#[derive(Clone, Default)]
pub struct Capture {
    events: Arc<Mutex<Vec<Captured>>>,
    spans: Arc<Mutex<Vec<FieldList>>>,
    stack: Arc<Mutex<Vec<u64>>>,
}

struct Fields<'a>(&'a mut Vec<(String, String)>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0
            .push((field.name().to_string(), format!("{value:?}")));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.push((field.name().to_string(), value.to_string()));
    }
}

/// A dispatcher registered for the life of the process and never any thread's default. tracing
/// caches each callsite's interest for the whole process; while at most one dispatcher is
/// registered it asks only the registering thread's default, so a test thread without a
/// capture that first reached a callsite cached `never` for every thread, captures included
/// (a test run beside others missed its events so). With this one registered beside every
/// capture, each callsite's interest is `sometimes`, and each event asks its own thread's
/// subscriber.
struct Anchor;

impl Subscriber for Anchor {
    fn register_callsite(&self, _: &'static Metadata<'static>) -> Interest {
        Interest::sometimes()
    }
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        false
    }
    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }
    fn record(&self, _: &Id, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, _: &Event<'_>) {}
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

static ANCHOR: OnceLock<Dispatch> = OnceLock::new();

impl Capture {
    /// Runs `f` with this subscriber as the thread's default; returns its result and the
    /// events (every event of the thread, whatever other threads run beside it).
    pub fn run<R>(f: impl FnOnce() -> R) -> (R, Vec<Captured>) {
        ANCHOR.get_or_init(|| Dispatch::new(Anchor));
        let cap = Capture::default();
        let r = tracing::subscriber::with_default(cap.clone(), || {
            // Callsites cached before the anchor was registered are asked again.
            tracing::callsite::rebuild_interest_cache();
            f()
        });
        let events = cap.events.lock().unwrap().clone();
        (r, events)
    }
}

impl Subscriber for Capture {
    fn register_callsite(&self, _: &'static Metadata<'static>) -> Interest {
        Interest::sometimes()
    }
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, attrs: &Attributes<'_>) -> Id {
        let mut fields = vec![("span".to_string(), attrs.metadata().name().to_string())];
        attrs.record(&mut Fields(&mut fields));
        let mut spans = self.spans.lock().unwrap();
        spans.push(fields);
        Id::from_u64(spans.len() as u64)
    }
    fn record(&self, _: &Id, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, event: &Event<'_>) {
        let mut fields = Vec::new();
        event.record(&mut Fields(&mut fields));
        let spans = self.spans.lock().unwrap();
        let in_spans = self
            .stack
            .lock()
            .unwrap()
            .iter()
            .flat_map(|&i| spans[i as usize - 1].clone())
            .collect();
        self.events.lock().unwrap().push(Captured {
            level: *event.metadata().level(),
            fields,
            spans: in_spans,
        });
    }
    fn enter(&self, id: &Id) {
        self.stack.lock().unwrap().push(id.into_u64());
    }
    fn exit(&self, _: &Id) {
        self.stack.lock().unwrap().pop();
    }
}

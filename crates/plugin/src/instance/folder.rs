//! The instance's folder: the replies kept across a reload taken back, and the record's
//! entries that wait for the folder to be made private looked at again on a timer.

use super::Instance;
use crate::shared_folder::FOLDER_LOOK_MS;
use crate::zellij_command::Command;

impl Instance {
    /// Takes back the replies this session's earlier instances kept as they closed.
    pub(super) fn recall_kept(&mut self) {
        if let Some(kept) = self.folder.take(self.zellij_pid) {
            self.broker.recall(&kept);
        }
    }

    /// Entries of the record wait for the folder to be made private: looked at again on a
    /// timer, for a while from now.
    pub(super) fn wait_for_folder(&mut self) {
        if self.folder_looks.wait(self.broker.now_ms()) {
            self.send(Command::SetTimeout(FOLDER_LOOK_MS as f64 / 1000.0));
        }
    }

    /// On a timer: if it is the look's, whether the folder was made private now, to write
    /// what waits; another look while it waits still. (Other timers come too: they are not.)
    pub(super) fn look_at_folder(&mut self, now_ms: u64) {
        let Some(until_ms) = self.folder_looks.due(now_ms) else {
            return;
        };
        if self.folder.write_held() && self.folder_looks.again(now_ms, until_ms) {
            self.send(Command::SetTimeout(FOLDER_LOOK_MS as f64 / 1000.0));
        }
    }
}

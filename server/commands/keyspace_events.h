// Keyspace notifications, as Redis 7.0 sends them (notify-keyspace-events):
// after a write command, for each key its commits wrote
// (Keyspace::RecordWrites), "__keyspace@DB__:KEY" gets the event's name and
// "__keyevent@DB__:EVENT" the key, for the classes the configuration
// selects. The event is named after the command and the key's place in it
// (RPOPLPUSH: "rpop" on its source, "lpush" on its destination; RENAME:
// "rename_from", "rename_to"), as Redis names them; a key a command emptied
// gets "del" after, a key it created "new" before (the command's keys are
// looked up first, when "new" events are on). The expiry sweep's deletes
// send "expired", its reclaimed hash fields "hexpired". Not sent: "evicted" (nothing is evicted), key-miss
// events.
//
// Thread safety: the flags are an atomic in ServerState; publishing goes
// through PubSub, which is thread-safe.
#pragma once

#include <string>
#include <vector>

#include "server_state.h"

namespace teksdb::server {

// The flags of a notify-keyspace-events value, or -1 for a character Redis
// does not know; and the value CONFIG GET shows for flags.
int KeyspaceEventFlags(const std::string& classes);
std::string KeyspaceEventClasses(int flags);

// Whether any event would be sent: then Execute records the writes of a
// write command and passes them to NotifyWrites.
bool NotificationsOn(const ServerState& server);
// Whether "new" events are on: then Execute passes the command's keys
// that were absent before it ran.
bool NewKeyEventsOn(const ServerState& server);
// `db`: the database the command ran in; `hints`: what the command did
// that names its events (ClientState::EventHints).
void NotifyWrites(ServerState& server, const std::vector<std::string>& args, int db,
                  const std::vector<Keyspace::WrittenKey>& written,
                  const std::vector<std::string>& absent_before,
                  const ClientState::EventHints& hints = ClientState::EventHints());
// A key the expiry sweep deleted.
void NotifyExpired(ServerState& server, int db, const std::string& key);
// A hash field reclaimed past its deadline ("hexpired"), and the hash with
// it when it was the last ("del").
void NotifyFieldExpired(ServerState& server, int db, const std::string& key, bool key_deleted);

}  // namespace teksdb::server

// PrimaryAuth: how this server logs in to its primary, and to the
// replica a FAILOVER promotes: masterauth, and masteruser (an ACL user;
// empty: the default one), as Redis sends them.
//
// Thread safety: a value.
#pragma once

#include <string>

#include "link_frames.h"

namespace teksdb::server {

struct PrimaryAuth {
  std::string user;      // masteruser
  std::string password;  // masterauth; empty: no AUTH at all

  // The AUTH frame to send ("AUTH user password", or "AUTH password"
  // without a user); empty when there is no password.
  std::string Frame() const {
    if (password.empty()) return "";
    return user.empty() ? link_frames::Frame({"AUTH", password})
                        : link_frames::Frame({"AUTH", user, password});
  }
};

}  // namespace teksdb::server

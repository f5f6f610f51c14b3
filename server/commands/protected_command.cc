// Protected commands' gate (protected_command.h).
#include "protected_command.h"

namespace teksdb::server {

bool ProtectedCommandAllowed(const std::string& setting, const ClientState& client) {
  if (setting == "yes") return true;
  if (setting != "local") return false;
  return client.address.rfind("127.", 0) == 0 || client.address.rfind("[::1]", 0) == 0;
}

std::string ProtectedCommandRefusal(const std::string& command, const std::string& setting_name) {
  return "ERR " + command + " command not allowed. If the " + setting_name +
         " option is set to \"local\", you can run it from a local connection, otherwise you need "
         "to set this option in the configuration file, and then restart the server.";
}

}  // namespace teksdb::server

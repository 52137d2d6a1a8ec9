#pragma once
// Convenience header: every model of the interface.
#include "trunk/enums.hpp"
#include "trunk/open_enum.hpp"
#include "trunk/page.hpp"
#include "trunk/queue_settings.hpp"
#include "trunk/repo.hpp"
#include "trunk/requests.hpp"
#include "trunk/responses.hpp"
#include "trunk/test_case.hpp"
#include "trunk/time.hpp"

#include "csndfile.h"

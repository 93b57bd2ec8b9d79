// PhotoSync

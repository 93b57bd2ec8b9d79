// PhotosyncCLI

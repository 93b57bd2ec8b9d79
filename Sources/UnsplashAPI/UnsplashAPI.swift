// UnsplashAPI

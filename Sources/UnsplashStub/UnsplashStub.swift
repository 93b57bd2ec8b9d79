// UnsplashStub

print("unsplash-stub")

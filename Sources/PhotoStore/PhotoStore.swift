// PhotoStore

module platform-api.example/clients/go

go 1.19

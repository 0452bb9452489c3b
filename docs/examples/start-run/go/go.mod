module example.com/acme/startrun

go 1.23

require example.com/acme/svcclient v0.0.0

replace example.com/acme/svcclient => ./svcclient
